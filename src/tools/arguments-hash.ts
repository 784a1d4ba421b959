import { hash } from 'node:crypto';

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
  // The one-shot `hash` (Node 20.12+): a third of `createHash` for the short texts of a call.
  return `sha256:${hash('sha256', argumentsText, 'hex')}`;
}
