import { createHash } from 'node:crypto';

/**
 * The hash the durable-run events record for a call's arguments (`sha256:<hex>` of the JSON
 * string as the model wrote it): an approved call runs only while its arguments still hash to
 * what the person approved.
 *
 * @example
 * ```ts
 * import { hashToolArguments } from 'loopkeeper/tools';
 *
 * console.log(hashToolArguments('{"path":"README.md"}')); // sha256:…
 * ```
 */
export function hashToolArguments(argumentsText: string): string {
  return `sha256:${createHash('sha256').update(argumentsText, 'utf8').digest('hex')}`;
}
