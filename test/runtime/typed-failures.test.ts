import {
  createAgentLoop,
  createCompactor,
  type LoopMutator,
  MemorySessionStore,
  type ModelAdapter,
  runTurn,
  type SessionEvent,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { AppendOptions, NewSessionEvent } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/** A store whose appends fail with a raw fs error, which has a `code` of its own. */
class RawErrorStore extends MemorySessionStore {
  failing = false;
  override append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options?: AppendOptions,
  ): Promise<readonly SessionEvent[]> {
    if (!this.failing) return super.append(sessionId, events, options);
    return Promise.reject(
      Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }),
    );
  }
}

describe('createAgentLoop failures from host code that throws plain errors', () => {
  it('end with typed codes, never unexpected', async () => {
    const plain = () => new Error('host code broke');
    const codes: Record<string, string | undefined> = {};

    const model = new ScriptedModel({ turns: [{ error: plain() }] });
    const modelLoop = createAgentLoop({ model, tokens });
    modelLoop.start();
    codes['model'] = (await runTurn(modelLoop, 'Hi')).error?.code;

    const mutator: LoopMutator = {
      name: 'broken',
      points: ['AfterTurnEnded'],
      mutate: () => {
        throw plain();
      },
    };
    const mutatorLoop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text: 'ok' }] }),
      mutators: [mutator],
      tokens,
    });
    mutatorLoop.start();
    codes['mutator'] = (await runTurn(mutatorLoop, 'Hi')).error?.code;

    const compactor = createCompactor({
      trigger: {
        name: 'broken',
        evaluate: () => {
          throw plain();
        },
      },
    });
    const triggerLoop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text: 'ok' }] }),
      compactor,
      tokens,
    });
    triggerLoop.start();
    codes['trigger'] = (await runTurn(triggerLoop, 'Hi')).error?.code;

    const store = new RawErrorStore();
    const storeLoop = createAgentLoop({
      model: new ScriptedModel({ script: () => ({ text: 'ok' }) }),
      store,
      tokens,
    });
    storeLoop.start();
    expect((await runTurn(storeLoop, 'Hi')).outcome).toBe('completed');
    store.failing = true;
    const failed = await runTurn(storeLoop, 'Hi again');
    codes['store'] = failed.error?.code;
    expect(failed.error?.message).toContain('ENOSPC');

    expect(codes).toEqual({
      model: 'model_unknown',
      mutator: 'mutator',
      trigger: 'trigger_failed',
      store: 'store',
    });
  });
});

describe('createAgentLoop with a trigger that starts throwing once the counter is loaded', () => {
  it('fails the run with trigger_failed, as on the first check', async () => {
    // The first check waits for the session's counter; later ones answer as the actor is made.
    const budget = tokenBudgetTrigger({ maxTokens: 100_000 });
    let broken = false;
    const compactor = createCompactor({
      trigger: {
        name: 'broken later',
        evaluate: (input) => {
          if (broken) throw new Error('host code broke');
          return budget.evaluate(input);
        },
      },
    });
    const loop = createAgentLoop({
      model: new ScriptedModel({ script: () => ({ text: 'ok' }) }),
      compactor,
      tokens,
    });
    loop.start();
    expect((await runTurn(loop, 'Hi')).outcome).toBe('completed');
    broken = true;
    const failed = await runTurn(loop, 'Hi again');
    expect(failed.outcome).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'trigger_failed' });
    expect(failed.error?.message).toContain('host code broke');
    broken = false;
    expect((await runTurn(loop, 'Once more')).outcome).toBe('completed');
  });
});

describe('createAgentLoop with a custom model that resolves no answer object', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an array', []],
  ])(
    'fails the run with model_invalid_response when generate resolves %s',
    async (_label, answer) => {
      const model: ModelAdapter = { name: 'sloppy', generate: async () => answer as never };
      const loop = createAgentLoop({ model, tokens });
      loop.start();
      const finished = await runTurn(loop, 'Hi');
      expect(finished).toMatchObject({
        outcome: 'failed',
        error: { name: 'ModelError', code: 'model_invalid_response' },
      });
      // Nothing of the non-answer is logged: the history holds only the user message.
      expect(loop.session.items.map((item) => item.kind)).toEqual(['user']);
    },
  );
});

describe('createAgentLoop with a host token counter that throws', () => {
  /** `tokens`, except that `method` throws a plain error. */
  function breaking(method: 'count' | 'countItem' | 'countText'): TokenCounter {
    const broken = {
      encoding: tokens.encoding,
      count: (items: Parameters<TokenCounter['count']>[0]) => tokens.count(items),
      countItem: (item: Parameters<TokenCounter['countItem']>[0]) => tokens.countItem(item),
      countText: (text: string) => tokens.countText(text),
    };
    broken[method] = () => {
      throw new Error(`${method} broke`);
    };
    return broken;
  }

  it('fails the run with ConfigError token_counter_failed before any request', async () => {
    const counter = breaking('count');
    const model = new ScriptedModel({ script: () => ({ text: 'ok' }) });
    const loop = createAgentLoop({ model, tokens: counter });
    loop.start();
    const finished = await runTurn(loop, 'Hi');
    expect(finished).toMatchObject({
      outcome: 'failed',
      error: { name: 'ConfigError', code: 'token_counter_failed' },
    });
    expect(finished.error?.message).toContain('count broke');
    expect(model.requests).toHaveLength(0);
  });

  it('types a throw from countText met by a compaction trigger the same way', async () => {
    const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 100_000 }) });
    const loop = createAgentLoop({
      model: new ScriptedModel({ script: () => ({ text: 'ok' }) }),
      compactor,
      tools: [],
      instructions: 'Be brief.',
      tokens: breaking('countText'),
    });
    loop.start();
    const finished = await runTurn(loop, 'Hi');
    expect(finished.outcome).toBe('failed');
    expect(finished.error?.code).toBe('token_counter_failed');
  });
});
