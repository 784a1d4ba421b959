import { ConfigError } from '../errors/config-error.js';
import type { CompactorOptions } from './compactor.js';
import type { MutationPoint } from './types.js';

const mutationPoints: readonly MutationPoint[] = [
  'AfterToolResult',
  'AfterTurnEnded',
  'BeforeInference',
];

function hasMethod(value: unknown, method: string): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>)[method] === 'function'
  );
}

/**
 * Refuses compactor options that would only fail later, mid-run: a missing trigger, a backend
 * or strategy of the wrong shape, unknown mutation points.
 */
export function assertCompactorOptions(options: CompactorOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('createCompactor: options must be an object with at least a trigger');
  }
  const { trigger, backend, strategy, name, points } = options;
  if (!hasMethod(trigger, 'evaluate')) {
    throw new ConfigError(
      'createCompactor: trigger is required and must be a CompactionTrigger (an object with evaluate), for example tokenBudgetTrigger()',
    );
  }
  if (backend !== undefined) {
    if (!hasMethod(backend, 'summarize')) {
      throw new ConfigError(
        'createCompactor: backend must be a CompactionBackend (an object with summarize)',
      );
    }
    if (!(typeof backend.maxInputTokens === 'number' && backend.maxInputTokens > 0)) {
      throw new ConfigError(
        `createCompactor: backend.maxInputTokens must be a positive number, got ${String(backend.maxInputTokens)}`,
      );
    }
  }
  if (strategy !== undefined && !hasMethod(strategy, 'apply')) {
    throw new ConfigError(
      'createCompactor: strategy must be a CompactionStrategy (an object with apply)',
    );
  }
  for (const hook of ['beforeCompaction', 'afterCompaction'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new ConfigError(`createCompactor: ${hook} must be a function`);
    }
  }
  if (name !== undefined && (typeof name !== 'string' || name === '')) {
    throw new ConfigError('createCompactor: name must be a non-empty string');
  }
  if (
    points !== undefined &&
    (!Array.isArray(points) || points.some((point) => !mutationPoints.includes(point)))
  ) {
    throw new ConfigError(
      `createCompactor: points must list mutation points (${mutationPoints.join(', ')})`,
    );
  }
}
