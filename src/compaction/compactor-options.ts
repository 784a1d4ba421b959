import { ConfigError } from '../errors/config-error.js';
import { CompactorOptionsSchema } from '../vocabulary/schemas/compactor-options.js';
import { shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import type { CompactorOptions } from './compactor.js';

/** Refuses, by `CompactorOptionsSchema`, compactor options that would only fail later, mid-run. */
export function assertCompactorOptions(options: CompactorOptions): void {
  const problems = shapeProblems(CompactorOptionsSchema, options, 'options');
  if (problems.length > 0) throw new ConfigError(`createCompactor: ${problems.join('; ')}`);
}
