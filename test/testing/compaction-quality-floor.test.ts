import { createCompactor, createTokenCounter, extractiveSummarizer, type Item } from 'loopkeeper';
import { type CompactionBudget, createSummaryItem } from 'loopkeeper/compaction';
import { measureCompactionQuality } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { headroomLine } from '../../src/compaction/compactor-steps.js';
import { compactionFloorTokens, observeFloors } from '../../src/testing/quality/request-floor.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const LINE = 1_000;
const GOAL = 'Look at config/settings.yaml and tell me what it says.';
const FOLLOW_UP = 'Thanks. Is the log level strict?';
// One answer larger than the whole line: no path, error line or identifier in it.
const LONG_ANSWER =
  'The settings file sets the log level to strict and the output format to plain text. '.repeat(80);

/**
 * Two turns. The first ends in an answer larger than the line, so the compaction at its end
 * keeps at least the request, that answer and a summary frame, more than the line: forced.
 * The second starts from a short request with nothing after it: a compaction there has room.
 */
const messages = [
  { role: 'user', content: GOAL },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'read', arguments: '{"path":"config/settings.yaml"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'level: strict\nformat: plain' },
  { role: 'assistant', content: LONG_ANSWER },
  { role: 'user', content: FOLLOW_UP },
  { role: 'assistant', content: 'Yes, it is strict.' },
];

const user = (content: string): Item => ({ kind: 'user', id: 'u', content });

describe('the floor measures of measureCompactionQuality', () => {
  it('count the forced emergency prune and the room after the floor of a scripted session', async () => {
    const measure = () =>
      measureCompactionQuality({
        name: 'floor',
        messages,
        line: LINE,
        tokens,
        backend: extractiveSummarizer(),
      });
    const report = await measure();
    const frame = tokens.countItem(createSummaryItem(''));
    const answer: Item = { kind: 'assistant', id: 'a', text: LONG_ANSWER };

    // By hand: the first compaction's floor (frame, request, long answer) is above the line,
    // so above any headroom line; the second's (frame, follow-up) is far below any.
    const firstFloor = frame + tokens.countItem(user(GOAL)) + tokens.countItem(answer);
    expect(firstFloor).toBeGreaterThan(LINE);
    const secondFloor = frame + tokens.countItem(user(FOLLOW_UP));
    expect(secondFloor).toBeLessThan(0.6 * (LINE - report.overheadTokens) - 100);
    expect(report.failures).toEqual([]);
    expect(report.compactions).toBe(2);
    expect(report.emergencyPrunes).toBe(1);
    expect(report.forcedEmergencyPrunes).toBe(1);

    // The final request is the summary and the follow-up: the floor is the empty summary and
    // the follow-up; the goal is not in it and shows the one dropped fact, its path.
    expect(report.paths.dropped).toBe(1);
    expect(report.errorLines.dropped + report.identifiers.dropped).toBe(0);
    const need = tokens.countText('config/settings.yaml');
    expect(report.droppedFactTokens).toBe(need);
    expect(report.floorTokens).toBe(secondFloor);
    expect(report.goalTokens).toBe(tokens.countText(GOAL) - need);
    expect(report.roomAfterFloorTokens).toBe(
      LINE - report.overheadTokens - secondFloor - tokens.countText(GOAL) + need,
    );

    // The last compaction kept the follow-up and the summary: an effective one had its headroom
    // line less that floor and the goal's line for the dropped facts.
    const budgets: CompactionBudget[] = [];
    const observed = await measureCompactionQuality({
      name: 'floor',
      messages,
      line: LINE,
      tokens,
      compactor: (trigger) => {
        const compactor = createCompactor({ trigger, backend: extractiveSummarizer() });
        return {
          ...compactor,
          async compact(input) {
            const outcome = await compactor.compact(input);
            budgets.push(outcome.budget);
            return outcome;
          },
        };
      },
    });
    expect(budgets).toHaveLength(2);
    const lastHeadroom = headroomLine(budgets[1] as CompactionBudget);
    expect(observed.roomUnderHeadroomTokens).toBe(
      lastHeadroom - secondFloor - tokens.countText(GOAL) + need,
    );
    expect(report.roomUnderHeadroomTokens).toBe(observed.roomUnderHeadroomTokens);
    expect(report.roomUnderHeadroomTokens).toBeLessThan(report.roomAfterFloorTokens);

    // Deterministic: the same replay gives the same figures.
    const again = await measure();
    expect([again.forcedEmergencyPrunes, again.floorTokens, again.roomAfterFloorTokens]).toEqual([
      report.forcedEmergencyPrunes,
      report.floorTokens,
      report.roomAfterFloorTokens,
    ]);
  });

  it('take the request as the structural tier leaves it and only the newest exchange', async () => {
    const budget: CompactionBudget = { maxTokens: 400, targetTokens: 240 };
    const call = (id: string) => ({ id, name: 'read', arguments: `{"n":"${id}"}` });
    const result = (callId: string, content: string): Item => ({
      kind: 'toolResult',
      id: `r_${callId}`,
      callId,
      toolName: 'read',
      content,
      isError: false,
    });
    const older: Item[] = [
      { kind: 'assistant', id: 'a1', toolCalls: [call('c1')] },
      result('c1', 'older output '.repeat(50)),
    ];
    const newest: Item[] = [
      { kind: 'assistant', id: 'a2', toolCalls: [call('c2'), call('c3')] },
      result('c2', 'first parallel output'),
      result('c3', 'second parallel output'),
    ];
    const shortRequest = user('Read the files.');
    const floorOf = (transcript: readonly Item[]) =>
      compactionFloorTokens({ transcript, budget, tokens });

    // Nothing but the request and the newest exchange: no summary frame.
    expect(await floorOf([shortRequest, ...newest])).toBe(tokens.count([shortRequest, ...newest]));
    // An older exchange of the same turn is left to the summary: its frame counts, it does not.
    expect(await floorOf([shortRequest, ...older, ...newest])).toBe(
      tokens.countItem(createSummaryItem('')) + tokens.count([shortRequest, ...newest]),
    );
    // A request ending the transcript has no newest exchange after it.
    expect(await floorOf([user('Earlier.'), ...newest, shortRequest])).toBe(
      tokens.countItem(createSummaryItem('')) + tokens.countItem(shortRequest),
    );
    // A request larger than the target is counted cut to half of it, as the structural tier cuts it.
    const longRequest = user(`Please do this. ${'Step by step, carefully. '.repeat(100)}`);
    expect(tokens.countItem(longRequest)).toBeGreaterThan(budget.targetTokens);
    const cut = (await floorOf([longRequest])) - tokens.count([]);
    expect(cut).toBeLessThanOrEqual(budget.targetTokens / 2);
    expect(cut).toBeGreaterThan(budget.targetTokens / 4);
  });

  it('observes a compactor without changing what it does', async () => {
    const trigger = {
      name: 'fixed',
      evaluate: () => ({
        fire: true,
        tokens: 0,
        basis: 'estimate' as const,
        budget: { maxTokens: 100, targetTokens: 60 },
      }),
    };
    const compactor = createCompactor({ trigger });
    const floors = observeFloors(compactor);
    const observed = floors.compactor;
    expect(floors.latestStep()).toBeUndefined();
    expect(observed.trigger).toBe(compactor.trigger);
    expect(observed.points).toEqual(compactor.points);
    const transcript: Item[] = [
      user('First.'),
      { kind: 'assistant', id: 'a', text: 'Done.' },
      user('Second.'),
    ];
    const input = {
      transcript,
      tokens,
      reason: 'threshold' as const,
      signal: AbortSignal.timeout(5_000),
    };
    const [plain, seen] = [await compactor.compact(input), await observed.compact(input)];
    expect(seen.transcript).toEqual(plain.transcript);
    const floor = tokens.countItem(createSummaryItem('')) + tokens.countItem(user('Second.'));
    const headroom = headroomLine({ maxTokens: 100, targetTokens: 60 });
    expect(floors.latestStep()).toMatchObject({
      floorTokens: floor,
      headroomTokens: headroom,
      forced: floor > headroom,
      outcome: seen,
    });
  });
});
