import { describeThrown } from '../vocabulary/index.js';

export type ToolOutput =
  | { readonly ok: true; readonly content: string }
  | { readonly ok: false; readonly message: string };

/**
 * Turns what `execute` returned into result content: strings as they are (however large —
 * compaction prunes big outputs later, truncating here would hide data from the model),
 * `undefined` as '', anything else JSON-encoded.
 */
export function encodeToolOutput(options: { toolName: string; output: unknown }): ToolOutput {
  const { toolName, output } = options;
  if (typeof output === 'string') {
    return { ok: true, content: output };
  }
  if (output === undefined) {
    return { ok: true, content: '' };
  }
  try {
    // JSON.stringify yields undefined for functions and symbols: nothing the model could read.
    return { ok: true, content: JSON.stringify(output) ?? '' };
  } catch (error) {
    const reason = describeThrown(error).message;
    return {
      ok: false,
      message: `Tool "${toolName}" returned a value that cannot be encoded as JSON (${reason}).`,
    };
  }
}
