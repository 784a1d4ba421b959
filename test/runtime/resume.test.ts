import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCompactor,
  defineTool,
  effectiveHistory,
  extractiveSummarizer,
  FileSessionStore,
  type Item,
  openAgentLoop,
  runTurn,
  type SessionStore,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { type ScriptedAnswer, ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSession, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
let directory: string | undefined;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
afterEach(async () => {
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

const notes = defineTool({
  name: 'notes',
  description: 'Returns notes for a topic.',
  parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  execute: ({ topic }: { topic: string }) => `notes about ${topic}: ${'detail '.repeat(150)}`,
});

/** Two scripted answers per turn: one tool call, then a conclusion. */
function answersFor(turns: number): ScriptedAnswer[] {
  return Array.from({ length: turns }, (_, turn) => [
    { toolCalls: [{ id: `call_${turn}`, name: 'notes', arguments: { topic: `topic ${turn}` } }] },
    { text: `Conclusion ${turn}: ${'reasoned '.repeat(40)}` },
  ]).flat();
}

function loopOptions(store: SessionStore, answers: readonly ScriptedAnswer[]) {
  return {
    model: new ScriptedModel({ tokens, turns: answers }),
    tools: [notes],
    compactor: createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: 1_500, targetRatio: 0.5 }),
      backend: extractiveSummarizer(),
      structural: { pruneToolResults: { protectRecentTokens: 200, minSavingsTokens: 10 } },
      summary: { keepRecentTokens: 300 },
    }),
    store,
    sessionId: 'resume-me',
    tokens,
  };
}

/** Content of items with ids and generated summary wording stripped, for comparing two runs. */
function shape(items: readonly Item[]): unknown[] {
  return items.map(({ id: _id, ...rest }) => rest);
}

describe('resuming a session from its log', () => {
  it('continues after a stop exactly as if it had never stopped', async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-resume-'));
    const answers = answersFor(6);

    const referenceStore = new FileSessionStore({ directory: join(directory, 'reference') });
    const reference = await openAgentLoop(loopOptions(referenceStore, answers));
    reference.start();
    for (let turn = 0; turn < 6; turn += 1) await runTurn(reference, `question ${turn}`);
    reference.stop();
    await referenceStore.close();

    const firstStore = new FileSessionStore({ directory: join(directory, 'resumed') });
    const first = await openAgentLoop(loopOptions(firstStore, answers.slice(0, 6)));
    first.start();
    for (let turn = 0; turn < 3; turn += 1) await runTurn(first, `question ${turn}`);
    first.stop();
    await firstStore.close();

    const secondStore = new FileSessionStore({ directory: join(directory, 'resumed') });
    const second = await openAgentLoop(loopOptions(secondStore, answers.slice(6)));
    expect(second.session.runs).toBe(3);
    second.start();
    for (let turn = 3; turn < 6; turn += 1) await runTurn(second, `question ${turn}`);
    second.stop();

    const resumedEvents = await readSession(secondStore, 'resume-me');
    const referenceEvents = await readSession(
      new FileSessionStore({ directory: join(directory, 'reference') }),
      'resume-me',
    );
    expect(shape(second.session.items)).toEqual(shape(effectiveHistory(referenceEvents)));
    expect(resumedEvents.map((event) => event.type)).toEqual(
      referenceEvents.map((event) => event.type),
    );
    expect(second.session.runs).toBe(6);
    expect(
      resumedEvents.filter((event) => event.type === 'transcript-replaced').length,
    ).toBeGreaterThan(0);
    await secondStore.close();
  });
});
