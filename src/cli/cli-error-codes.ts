/**
 * The codes only the `loopkeeper` command raises, by class, apart from the library's
 * `ERROR_CODES`: a host embedding the library never meets them, and a session log never holds
 * them. The command prints the message, not the code; tests and callers of the command's
 * modules read the code.
 */
export const CLI_ERROR_CODES = {
  /** The command line itself is wrong: exit code 2. */
  UsageError: ['usage'],
  /** A file, directory, port or package the command needs is not usable: exit code 1. */
  CommandError: [
    'budget_not_met',
    'demo_run_failed',
    'demo_step_limit',
    'empty_transcript',
    'inspector_port',
    'invalid_cwd',
    'invalid_transcript_file',
    'no_recordings',
    'not_a_session_log',
    'optional_dependency_missing',
    'output_exists',
    'output_unwritable',
    'package_root_missing',
    'replay_stalled',
    'session_not_found',
    'transcript_unreadable',
    'unknown_strategy',
  ],
} as const;

export type UsageErrorCode = (typeof CLI_ERROR_CODES)['UsageError'][number];
export type CommandErrorCode = (typeof CLI_ERROR_CODES)['CommandError'][number];
export type CliErrorCode = UsageErrorCode | CommandErrorCode;
