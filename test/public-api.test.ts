import { describe, expect, it } from 'vitest';
import * as loopkeeper from '../src/index.js';
import * as testing from '../src/testing/index.js';

// The names DESIGN.md promises to users and acceptance checks.
const designNames = [
  'agentLoopMachine',
  'createAgentLoop',
  'createTelemetryHub',
  'openAIChatModel',
  'validateTranscript',
  'assertValidTranscript',
  'repairTranscript',
  'userTurns',
  'fromChatMessages',
  'toChatMessages',
  'createTokenCounter',
  'countTokens',
  'createCalibration',
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

describe('the package entry points', () => {
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
    const error = new loopkeeper.ProtocolError([]);
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
