import type { ModelErrorKind } from './model-error.js';

/**
 * Every code a loopkeeper error can carry, by class: typed unions, so a code is never a free
 * string, and listed at runtime, so a code read back from a log or a journal can be checked.
 * The `loopkeeper` command's own codes (a bad command line, an unreadable transcript file) are
 * not the library's: they live in the CLI's table.
 *
 * @example
 * ```ts
 * import { ERROR_CODES } from 'loopkeeper';
 *
 * // Check a code read back from a log before trusting it.
 * const code: string = 'corrupt_log';
 * console.log((ERROR_CODES.StoreError as readonly string[]).includes(code)); // true
 * ```
 */
export const ERROR_CODES = {
  AbortedError: ['aborted'],
  ApprovalError: [
    'approval_not_pending',
    'approval_already_decided',
    'approval_invalid',
    'approval_pending',
  ],
  CompactionError: [
    'compaction',
    'emergency_prune_failed',
    'no_backend',
    'summary_aborted',
    'summary_failed',
    'summary_input_too_small',
    'summary_rejected',
    'summary_timeout',
    'trigger_failed',
  ],
  ConcurrencyError: ['concurrency', 'run_id_reused'],
  ConfigError: [
    'config',
    'config_duplicate_tool_name',
    'config_invalid_input',
    'config_invalid_option',
    'config_invalid_telemetry_source',
    'config_invalid_timeout',
    'config_invalid_tools',
    'encoding_load_failed',
    'invalid_cache_size',
    'invalid_items',
    'invalid_session_id',
    'invalid_smoothing',
    'invalid_text',
    'invalid_token_count',
    'item_id_reused',
    'token_counter_failed',
    'unknown_encoding',
  ],
  ContextOverflowError: ['context_overflow'],
  DurableStepError: ['durable_step'],
  LoopNotRunningError: ['loop_not_running'],
  MutatorError: ['mutator'],
  ProtocolError: ['protocol_invalid'],
  StoreError: [
    'store',
    'corrupt_log',
    'event_out_of_order',
    'invalid_event',
    'invalid_replacement',
    'io',
    'session_locked',
    'store_closed',
    'store_gap',
    'store_not_migrated',
    'store_wrong_session',
    'symlink_refused',
    'unresolved_reference',
    'unsupported_schema_version',
    'writer_broken',
    /** A Restate session: one value (a message, an append) over the object's `maxEntryBytes`. */
    'value_too_large',
    /** A Restate session: the log would grow past the object's `maxSessionBytes`. */
    'session_full',
  ],
  ToolError: [
    'tool',
    'tool_invalid_definition',
    'tool_output_too_large',
    /** A Restate session: a non-idempotent call a crash cut off, not run again. */
    'tool_interrupted',
  ],
} as const;

type CodesOf<Name extends keyof typeof ERROR_CODES> = (typeof ERROR_CODES)[Name][number];

export type AbortedErrorCode = CodesOf<'AbortedError'>;
export type ApprovalErrorCode = CodesOf<'ApprovalError'>;
export type CompactionErrorCode = CodesOf<'CompactionError'>;
export type ConcurrencyErrorCode = CodesOf<'ConcurrencyError'>;
export type ConfigErrorCode = CodesOf<'ConfigError'>;
export type ContextOverflowErrorCode = CodesOf<'ContextOverflowError'>;
export type DurableStepErrorCode = CodesOf<'DurableStepError'>;
export type LoopNotRunningErrorCode = CodesOf<'LoopNotRunningError'>;
export type MutatorErrorCode = CodesOf<'MutatorError'>;
export type ProtocolErrorCode = CodesOf<'ProtocolError'>;
export type StoreErrorCode = CodesOf<'StoreError'>;
export type ToolErrorCode = CodesOf<'ToolError'>;
/** A `ModelError`'s code: `model_` and its kind. */
export type ModelErrorCode = `model_${ModelErrorKind}`;

/** Any code a loopkeeper error carries. */
export type LoopkeeperErrorCode = CodesOf<keyof typeof ERROR_CODES> | ModelErrorCode;

/**
 * Whether `code` is one of `Name`'s codes (for a code read back from a log or a journal).
 *
 * @example
 * ```ts
 * import { isErrorCodeOf } from 'loopkeeper/errors';
 *
 * const code: string = 'corrupt_log';
 * if (isErrorCodeOf('StoreError', code)) console.log(`a store error: ${code}`);
 * ```
 */
export function isErrorCodeOf<Name extends keyof typeof ERROR_CODES>(
  name: Name,
  code: unknown,
): code is CodesOf<Name> {
  return (ERROR_CODES[name] as readonly unknown[]).includes(code);
}

/**
 * Whether `code` is any loopkeeper error's code (a `model_` code by its prefix).
 *
 * @example
 * ```ts
 * import { isLoopkeeperErrorCode } from 'loopkeeper/errors';
 *
 * // Check an error code read back from a log or a journal before branching on it.
 * const recorded: unknown = JSON.parse('{"code":"model_rate_limit"}').code;
 * if (isLoopkeeperErrorCode(recorded)) console.log(`known code ${recorded}`);
 * ```
 */
export function isLoopkeeperErrorCode(code: unknown): code is LoopkeeperErrorCode {
  if (typeof code !== 'string') return false;
  if (code.startsWith('model_')) return true;
  return Object.values(ERROR_CODES).some((codes) => (codes as readonly string[]).includes(code));
}
