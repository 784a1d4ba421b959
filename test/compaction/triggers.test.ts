import {
  ConfigError,
  contextWindowTrigger,
  createTokenCounter,
  type Item,
  itemCountTrigger,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const transcript: Item[] = [
  { kind: 'user', id: 'u1', content: 'Please read the config and fix the failing test.' },
  {
    kind: 'assistant',
    id: 'a1',
    toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"cat config.json"}' }],
  },
  {
    kind: 'toolResult',
    id: 'r1',
    callId: 'c1',
    toolName: 'bash',
    content: '{"retries": 3}\n'.repeat(50),
    isError: false,
  },
  { kind: 'assistant', id: 'a2', text: 'The config sets three retries.' },
];

describe('contextWindowTrigger', () => {
  it('fires when the input tokens are >= window * percent / 100, as the seed context_window_trigger(window, percent)', () => {
    const estimate = tokens.count(transcript);
    // A window whose 50 % line sits exactly at the estimate: at the line it fires.
    const atLine = contextWindowTrigger({ window: estimate * 2, percent: 50 });
    expect(atLine.evaluate({ transcript, tokens })).toEqual({
      fire: true,
      tokens: estimate,
      basis: 'estimate',
      budget: {
        maxTokens: estimate,
        targetTokens: Math.floor(estimate * 0.6),
        limitTokens: estimate * 2,
      },
    });
    // One token under the line holds.
    const above = contextWindowTrigger({ window: (estimate + 1) * 2, percent: 50 });
    expect(above.evaluate({ transcript, tokens }).fire).toBe(false);
  });

  it('takes the output reserve off the window before the percent applies', () => {
    const estimate = tokens.count(transcript);
    const trigger = contextWindowTrigger({
      window: estimate + 1_000,
      outputReserve: 1_000,
      percent: 100,
    });
    expect(trigger.evaluate({ transcript, tokens })).toMatchObject({
      fire: true,
      budget: { maxTokens: estimate },
    });
    const roomier = contextWindowTrigger({
      window: estimate + 1_001,
      outputReserve: 1_000,
      percent: 100,
    });
    expect(roomier.evaluate({ transcript, tokens }).fire).toBe(false);
  });

  it('uses the defaults: no output reserve, 55 % of the window, target 60 % of the line', () => {
    const decision = contextWindowTrigger({ window: 128_000 }).evaluate({ transcript, tokens });
    const line = Math.floor(128_000 * 0.55);
    expect(decision.budget).toEqual({
      maxTokens: line,
      targetTokens: Math.floor(line * 0.6),
      limitTokens: 128_000,
    });
    expect(decision.fire).toBe(false);
  });

  it('works with the defaults on a 4k window', () => {
    const trigger = contextWindowTrigger({ window: 4_096 });
    const decision = trigger.evaluate({ transcript, tokens });
    expect(decision.budget.maxTokens).toBe(Math.floor(4_096 * 0.55));
    expect(decision.fire).toBe(false);
  });

  it('uses reported usage plus the estimate of items added since, and says so', () => {
    const trigger = contextWindowTrigger({ window: 10_000, percent: 100 });
    const addedSince =
      tokens.countItem(transcript[2] as Item) + tokens.countItem(transcript[3] as Item);
    const decision = trigger.evaluate({
      transcript,
      tokens,
      reported: { promptTokens: 9_990, itemCount: 2 },
    });
    expect(decision).toMatchObject({ basis: 'reported', tokens: 9_990 + addedSince, fire: true });
  });

  it('lowers the budget by what the reported request held besides items', () => {
    const trigger = contextWindowTrigger({ window: 10_000, percent: 100 });
    const covered = tokens.count(transcript.slice(0, 2));
    // Instructions and tool schemas made the request 700 tokens larger than its items.
    const decision = trigger.evaluate({
      transcript,
      tokens,
      reported: { promptTokens: covered + 700, itemCount: 2 },
    });
    // The target is the ratio of the room left for items, not of the whole line.
    expect(decision.budget).toEqual({
      maxTokens: 10_000 - 700,
      targetTokens: Math.floor((10_000 - 700) * 0.6),
    });
    // The window is the limit when the line sits under it; here the line is the whole window.
    expect(decision.budget.limitTokens).toBeUndefined();
    expect(decision.fire).toBe(false);
  });

  it('falls back to the estimate when the report covers more items than the transcript holds', () => {
    const decision = contextWindowTrigger({ window: 10_000 }).evaluate({
      transcript,
      tokens,
      reported: { promptTokens: 50_000, itemCount: 40 },
    });
    expect(decision).toMatchObject({ basis: 'estimate', tokens: tokens.count(transcript) });
  });

  it('takes percent as a percent and refuses a ratio with a message suggesting the percent', () => {
    expect(() => contextWindowTrigger({ window: 100_000, percent: 0.8 })).toThrow(
      /percent takes percents.*write 80 for 80%/,
    );
    expect(() => contextWindowTrigger({ window: 100_000, percent: 1 })).toThrow(ConfigError);
    expect(contextWindowTrigger({ window: 100_000, percent: 80 }).name).toBe('contextWindow');
  });

  it('refuses impossible options with a ConfigError', () => {
    expect(() => contextWindowTrigger({ window: 8_192, outputReserve: 8_192 })).toThrow(
      ConfigError,
    );
    expect(() => contextWindowTrigger({ window: -1 })).toThrow(ConfigError);
    expect(() => contextWindowTrigger({ window: Number.NaN })).toThrow(ConfigError);
    expect(() => contextWindowTrigger({ window: 100_000, outputReserve: -5 })).toThrow(ConfigError);
    expect(() => contextWindowTrigger({ window: 100_000, percent: 0 })).toThrow(ConfigError);
    expect(() => contextWindowTrigger({ window: 100_000, percent: 120 })).toThrow(ConfigError);
    expect(() => contextWindowTrigger({ window: 100_000, percent: 0.8 })).toThrow(ConfigError);
    expect(() => contextWindowTrigger({ window: 100_000, percent: Number.NaN })).toThrow(
      ConfigError,
    );
    expect(() => contextWindowTrigger({ window: 100_000, targetRatio: 0 })).toThrow(ConfigError);
  });
});

describe('tokenBudgetTrigger', () => {
  it('defaults to 60,000 tokens with a target of 60 % of them', () => {
    expect(tokenBudgetTrigger().evaluate({ transcript, tokens })).toMatchObject({
      fire: false,
      basis: 'estimate',
      budget: { maxTokens: 60_000, targetTokens: 36_000 },
    });
  });

  it('fires when the prompt holds more than maxTokens', () => {
    const estimate = tokens.count(transcript);
    expect(tokenBudgetTrigger({ maxTokens: estimate }).evaluate({ transcript, tokens }).fire).toBe(
      false,
    );
    const decision = tokenBudgetTrigger({ maxTokens: estimate - 1, targetRatio: 0.5 }).evaluate({
      transcript,
      tokens,
    });
    expect(decision).toMatchObject({
      fire: true,
      budget: { maxTokens: estimate - 1, targetTokens: Math.floor((estimate - 1) * 0.5) },
    });
  });

  it('counts reported usage when given, and aims the budget at the items', () => {
    const items = tokens.count(transcript);
    const maxTokens = items + 200;
    // The request held 300 tokens besides its items (instructions, tool schemas).
    const decision = tokenBudgetTrigger({ maxTokens }).evaluate({
      transcript,
      tokens,
      reported: { promptTokens: items + 300, itemCount: transcript.length },
    });
    expect(decision).toMatchObject({ fire: true, tokens: items + 300, basis: 'reported' });
    expect(decision.budget).toEqual({
      maxTokens: maxTokens - 300,
      targetTokens: Math.floor((maxTokens - 300) * 0.6),
    });
  });

  it('refuses impossible options with a ConfigError', () => {
    expect(() => tokenBudgetTrigger({ maxTokens: 0 })).toThrow(ConfigError);
    expect(() => tokenBudgetTrigger({ maxTokens: Number.POSITIVE_INFINITY })).toThrow(ConfigError);
    expect(() => tokenBudgetTrigger({ targetRatio: -0.1 })).toThrow(ConfigError);
  });
});

describe('itemCountTrigger', () => {
  it('fires when the transcript holds more than maxItems items, as the seed ItemCountTrigger, and aims at a share of the current tokens', () => {
    const estimate = tokens.count(transcript);
    expect(itemCountTrigger({ maxItems: 4 }).evaluate({ transcript, tokens }).fire).toBe(false);
    expect(
      itemCountTrigger({ maxItems: 3, targetRatio: 0.5 }).evaluate({ transcript, tokens }),
    ).toEqual({
      fire: true,
      tokens: estimate,
      basis: 'estimate',
      budget: { maxTokens: estimate, targetTokens: Math.floor(estimate * 0.5) },
    });
  });

  it('refuses impossible options with a ConfigError', () => {
    expect(() => itemCountTrigger({ maxItems: 0 })).toThrow(ConfigError);
    expect(() => itemCountTrigger({ maxItems: 2.5 })).toThrow(ConfigError);
    expect(() => itemCountTrigger({ maxItems: 10, targetRatio: 2 })).toThrow(ConfigError);
  });
});
