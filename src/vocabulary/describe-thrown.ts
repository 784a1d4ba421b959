/** What can always be said about a thrown value. */
export interface ThrownDescription {
  readonly name: string;
  readonly message: string;
}

const undescribable = '(a thrown value that cannot be described)';

/**
 * Describes anything a tool, model, mutator or store threw, and never throws itself: a value
 * whose `message` getter throws, a Proxy that throws on every trap, a null-prototype object, a
 * Symbol or an object whose `toString` throws all get a description. A crash while reporting a
 * failure would turn one bad tool into a dead host.
 */
export function describeThrown(value: unknown): ThrownDescription {
  try {
    if (typeof value === 'string') return { name: 'Error', message: value };
    if (typeof value === 'symbol') return { name: 'Error', message: value.toString() };
    if (typeof value !== 'object' && typeof value !== 'function') {
      return { name: 'Error', message: String(value) };
    }
    if (value === null) return { name: 'Error', message: 'null' };
    const name = safely(() => (value as { name?: unknown }).name);
    const message = safely(() => (value as { message?: unknown }).message);
    if (typeof message === 'string') {
      return { name: typeof name === 'string' && name !== '' ? name : 'Error', message };
    }
    return { name: 'Error', message: textOf(value) };
  } catch {
    return { name: 'Error', message: undescribable };
  }
}

/** `describeThrown` as one line: `message`, or `Name: message` when the name says more. */
export function describeThrownText(value: unknown): string {
  const { name, message } = describeThrown(value);
  const text = message === '' ? '(no message)' : message;
  return name === 'Error' ? text : `${name}: ${text}`;
}

/** JSON for plain data, `String()` otherwise, or a fixed text when both throw. */
function textOf(value: object): string {
  const json = safely(() => JSON.stringify(value));
  if (typeof json === 'string' && json !== '{}') return json;
  const text = safely(() => String(value));
  if (typeof text === 'string') return text;
  return typeof json === 'string' ? json : undescribable;
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
