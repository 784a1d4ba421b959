/** Where the CLI writes: a stream that may be a terminal. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Text decorations; every one is the identity when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Colour only on a terminal and only when NO_COLOR is unset or empty (https://no-color.org),
 * so piped output and logs never carry escape codes.
 */
export function createStyle({
  stream,
  env,
}: {
  stream: OutputStream;
  env: Readonly<Record<string, string | undefined>>;
}): Style {
  const { NO_COLOR: noColor } = env;
  const enabled = stream.isTTY === true && (noColor === undefined || noColor === '');
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
