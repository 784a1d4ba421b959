import { ConfigError } from '../../errors/config-error.js';

/** A finite number >= 0 (or > 0 when `positive`), otherwise a ConfigError naming the option. */
export function requireNonNegative(
  owner: string,
  option: string,
  value: number,
  { positive = false, integer = false }: { positive?: boolean; integer?: boolean } = {},
): number {
  // Number.isFinite is false for anything but a finite number, a value of the wrong type included.
  const valid =
    Number.isFinite(value) &&
    (positive ? value > 0 : value >= 0) &&
    (!integer || Number.isInteger(value));
  if (!valid) {
    const kind = `${positive ? 'a positive' : 'a non-negative'} ${integer ? 'integer' : 'number'}`;
    throw new ConfigError(`${owner}: ${option} must be ${kind}, got ${String(value)}`);
  }
  return value;
}

/** A ratio in (0, 1], otherwise a ConfigError naming the option. */
export function requireRatio(owner: string, option: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new ConfigError(`${owner}: ${option} must be in (0, 1], got ${String(value)}`);
  }
  return value;
}
