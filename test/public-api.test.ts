import { readFileSync } from 'node:fs';
import * as loopkeeper from 'loopkeeper';
import * as compaction from 'loopkeeper/compaction';
import * as errors from 'loopkeeper/errors';
import * as log from 'loopkeeper/log';
import * as machines from 'loopkeeper/machines';
import * as model from 'loopkeeper/model';
import * as runtime from 'loopkeeper/runtime';
import * as testing from 'loopkeeper/testing';
import * as tokens from 'loopkeeper/tokens';
import * as tools from 'loopkeeper/tools';
import * as transcript from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';

// The names DESIGN.md promises to users and acceptance checks.
const designNames = [
  'agentLoopMachine',
  'createAgentLoop',
  'createTelemetryHub',
  'openAIChatModel',
  'validateTranscript',
  'repairTranscript',
  'fromChatMessages',
  'toChatMessages',
  'createTokenCounter',
  'effectiveHistory',
  'MemorySessionStore',
  'FileSessionStore',
  'createCompactor',
  'contextWindowTrigger',
  'tokenBudgetTrigger',
  'itemCountTrigger',
  'dropReasoning',
  'dropFailedToolResults',
  'pruneToolResults',
  'keepRecent',
  'summarizeOlder',
  'pipeline',
  'emergencyPrune',
  'openAISummarizer',
  'extractiveSummarizer',
  'defineTool',
  'LoopkeeperError',
  'ProtocolError',
  'StoreError',
  'ConcurrencyError',
  'ConfigError',
  'MutatorError',
  'ContextOverflowError',
  'ModelError',
  'COMPACTION_SUMMARY_NAME',
] as const;

// Names the README and the seed table promise besides those (issue 13).
const readmeNames = ['agentSummarizer', 'runTurn', 'LoopNotRunningError'] as const;

// Low-level names that live in their area's entry only.
const subpathOnly = [
  ['loopkeeper/transcript', transcript, ['assertValidTranscript', 'userTurns', 'createItemId']],
  ['loopkeeper/tokens', tokens, ['countTokens', 'createCalibration', 'countRequest']],
  [
    'loopkeeper/log',
    log,
    ['SessionProjection', 'loadProjection', 'assertValidSessionId', 'resumeProjection'],
  ],
  ['loopkeeper/compaction', compaction, ['pruneLargestToolResults', 'clipToolResults']],
  ['loopkeeper/model', model, ['chatRequestBody', 'classifyModelError']],
  ['loopkeeper/tools', tools, ['executeToolCalls', 'createToolRegistry']],
  ['loopkeeper/runtime', runtime, ['safeListener', 'serializeError', 'machineToMermaid']],
  ['loopkeeper/errors', errors, ['isLoopkeeperErrorCode']],
] as const;

// Each area entry holds the whole area, the root names of that area included (same bindings).
const areaEntries = [compaction, errors, log, model, runtime, tokens, tools, transcript, machines];

/** The names `src/index.ts` exports, types included, read from its export lists. */
function rootExportNames(): string[] {
  const source = readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8');
  const names: string[] = [];
  for (const [, list] of source.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
    for (const entry of (list ?? '').split(',')) {
      const name = entry.trim().replace(/^type /, '');
      if (name !== '') names.push(name);
    }
  }
  return names;
}

describe('the package entry points', () => {
  it('the root entry stays small: what a host needs to embed the loop, at most 66 names', () => {
    const names = rootExportNames();
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeLessThanOrEqual(66);
    // Every runtime value the root exports is one of the names listed there.
    expect(Object.keys(loopkeeper).every((name) => names.includes(name))).toBe(true);
  });

  it('every root value is also exported, as the same binding, by the entry of its area', () => {
    for (const name of Object.keys(loopkeeper)) {
      const value = Reflect.get(loopkeeper, name);
      const homes = areaEntries.filter((entry) => Reflect.get(entry, name) === value);
      expect(homes.length, name).toBeGreaterThan(0);
    }
  });

  it.each(subpathOnly)('%s exports its low-level names', (_entry, module, names) => {
    for (const name of names) {
      expect(Reflect.get(module, name), name).toBeDefined();
      expect(Object.keys(loopkeeper)).not.toContain(name);
    }
  });

  it('package.json maps every entry to built files under dist', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { exports: Record<string, { types: string; default: string }> };
    expect(Object.keys(manifest.exports).sort()).toEqual(
      [
        '.',
        './ai-sdk',
        './langchain',
        './compaction',
        './errors',
        './log',
        './machines',
        './model',
        './otel',
        './postgres',
        './restate',
        './runtime',
        './testing',
        './tokens',
        './tools',
        './transcript',
      ].sort(),
    );
    for (const target of Object.values(manifest.exports)) {
      expect(target.default).toMatch(/^\.\/dist\/.+\.js$/);
      expect(target.types).toBe(target.default.replace(/\.js$/, '.d.ts'));
    }
  });

  it.each([...designNames, ...readmeNames])('loopkeeper exports %s', (name) => {
    expect(Object.keys(loopkeeper)).toContain(name);
    expect(Reflect.get(loopkeeper, name)).toBeDefined();
  });

  it('loopkeeper/testing exports ScriptedModel and the fake OpenAI server', () => {
    expect(typeof testing.ScriptedModel).toBe('function');
    expect(typeof testing.startFakeOpenAIServer).toBe('function');
    expect(typeof testing.recordedSession).toBe('function');
  });

  it('errors are recognised across copies through their Symbol.for marker', () => {
    const error = new loopkeeper.ProtocolError({ problems: [] });
    const lookalike = Object.assign(Object.create(null), {
      [Symbol.for('loopkeeper.error')]: true,
    });
    expect(loopkeeper.LoopkeeperError.isInstance(error)).toBe(true);
    expect(loopkeeper.ProtocolError.isInstance(error)).toBe(true);
    expect(loopkeeper.StoreError.isInstance(error)).toBe(false);
    expect(loopkeeper.LoopkeeperError.isInstance(lookalike)).toBe(true);
    expect(error.code).toBe('protocol_invalid');
  });
});
