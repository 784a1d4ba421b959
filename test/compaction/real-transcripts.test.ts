import {
  type CompactionStrategy,
  createTokenCounter,
  dropFailedToolResults,
  dropReasoning,
  emergencyPrune,
  fromChatMessages,
  type Item,
  keepRecent,
  pipeline,
  pruneToolResults,
  validateTranscript,
} from 'loopkeeper';
import {
  type CompactionResult,
  defaultToolOutputPlaceholder,
  pruneLargestToolResults,
} from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { pruneToolOutput } from '../../src/compaction/helpers/tool-output-placeholder.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

/**
 * The structural strategies on real agent runs: each of the five shipped transcripts, and all
 * five concatenated into one long session. The transcripts are small (8k to 14k tokens), so
 * the options are scaled down from the defaults to make every strategy do real work.
 */

interface Session {
  readonly name: string;
  readonly transcript: readonly Item[];
}

interface StrategyColumn {
  readonly label: string;
  /** Built per session, because some options are a share of the session's size. */
  readonly build: (sessionTokens: number) => CompactionStrategy;
}

const columns: readonly StrategyColumn[] = [
  { label: 'dropReasoning', build: () => dropReasoning() },
  { label: 'dropFailedToolResults', build: () => dropFailedToolResults() },
  {
    label: 'pruneToolResults (protect 2k, min 500)',
    build: () => pruneToolResults({ protectRecentTokens: 2_000, minSavingsTokens: 500 }),
  },
  {
    label: 'pruneLargestToolResults (to 50%)',
    build: (size) => pruneLargestToolResults({ targetTokens: Math.floor(size / 2) }),
  },
  { label: 'keepRecent (25% of tokens)', build: (size) => keepRecent({ tokens: size / 4 }) },
  {
    label: 'emergencyPrune (25%)',
    build: (size) => emergencyPrune({ maxTokens: Math.floor(size / 4) }),
  },
  {
    label: 'structural pipeline',
    build: () =>
      pipeline(
        dropReasoning(),
        dropFailedToolResults(),
        pruneToolResults({ protectRecentTokens: 2_000, minSavingsTokens: 500 }),
      ),
  },
];

let tokens: TokenCounter;
let sessions: Session[];
/** results[session][column] */
const results = new Map<string, Map<string, CompactionResult>>();

/** Prefixes every tool-call id so calls stay unique when sessions are concatenated. */
// biome-ignore lint/suspicious/noExplicitAny: raw OpenAI chat messages as stored on disk
function withCallIdPrefix(messages: readonly any[], prefix: string): any[] {
  return messages.map((message) => ({
    ...message,
    ...(message.tool_calls === undefined
      ? {}
      : {
          // biome-ignore lint/suspicious/noExplicitAny: raw OpenAI chat messages as stored on disk
          tool_calls: message.tool_calls.map((call: any) => ({
            ...call,
            id: `${prefix}${call.id}`,
          })),
        }),
    ...(message.tool_call_id === undefined
      ? {}
      : { tool_call_id: `${prefix}${message.tool_call_id}` }),
  }));
}

beforeAll(async () => {
  tokens = await createTokenCounter();
  const fixtures = loadTranscriptFixtures();
  sessions = fixtures.map((fixture) => ({
    name: fixture.file.replace(/\.json$/, ''),
    transcript: fromChatMessages(fixture.messages),
  }));
  // fromChatMessages gives every item a fresh id, so only call ids need keeping apart.
  const concatenated = fixtures.flatMap((fixture, index) =>
    withCallIdPrefix(fixture.messages, `s${index}_`),
  );
  sessions.push({ name: 'all five concatenated', transcript: fromChatMessages(concatenated) });

  for (const session of sessions) {
    const size = tokens.count(session.transcript);
    const row = new Map<string, CompactionResult>();
    for (const column of columns) {
      const result = await column.build(size).apply(
        {
          transcript: session.transcript,
          reason: 'threshold',
          budget: { maxTokens: size, targetTokens: Math.floor(size / 2) },
        },
        { tokens, signal: new AbortController().signal },
      );
      row.set(column.label, result);
    }
    results.set(session.name, row);
  }

  const header = ['transcript', 'items', 'tokens', ...columns.map((column) => column.label)];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, index) => (index === 0 ? '---' : '---:')).join('|')}|`,
    ...sessions.map((session) => {
      const size = tokens.count(session.transcript);
      const cells = columns.map((column) => {
        const result = results.get(session.name)?.get(column.label) as CompactionResult;
        const after = tokens.count(result.transcript);
        const valid = validateTranscript(result.transcript).length === 0 ? '' : ' INVALID';
        return `${after} (-${Math.round(((size - after) / size) * 100)}%)${valid}`;
      });
      return `| ${[session.name, session.transcript.length, size, ...cells].join(' | ')} |`;
    }),
  ];
  console.log(
    `Structural compaction on the real transcripts (tokens after, reduction):\n${lines.join('\n')}`,
  );
});

function resultOf(session: string, column: string): CompactionResult {
  const result = results.get(session)?.get(column);
  if (result === undefined) throw new Error(`no result for ${session} / ${column}`);
  return result;
}

describe('structural strategies on real transcripts', () => {
  it('every strategy returns a protocol-valid transcript that is never larger', () => {
    expect(sessions).toHaveLength(6);
    for (const session of sessions) {
      const size = tokens.count(session.transcript);
      for (const column of columns) {
        const { transcript } = resultOf(session.name, column.label);
        expect(validateTranscript(transcript), `${session.name} / ${column.label}`).toEqual([]);
        expect(tokens.count(transcript)).toBeLessThanOrEqual(size);
      }
    }
  });

  it('the concatenated session keeps every call id unique and validates', () => {
    const concatenated = sessions.at(-1) as Session;
    expect(validateTranscript(concatenated.transcript)).toEqual([]);
    const total = sessions.slice(0, 5).reduce((sum, session) => sum + session.transcript.length, 0);
    expect(concatenated.transcript).toHaveLength(total);
  });

  it('pruneToolResults reduces the SWE-agent transcripts and the long session', () => {
    for (const session of sessions.filter(
      ({ name }) => name.startsWith('swe-agent') || name === 'all five concatenated',
    )) {
      const size = tokens.count(session.transcript);
      const pruned = resultOf(session.name, 'pruneToolResults (protect 2k, min 500)');
      expect(tokens.count(pruned.transcript), session.name).toBeLessThan(size * 0.8);
    }
  });

  it('dropFailedToolResults removes the failures that lie before the latest turn', () => {
    for (const session of sessions) {
      const latestUser = session.transcript.findLastIndex((item) => item.kind === 'user');
      const failedBefore = session.transcript
        .slice(0, latestUser)
        .filter((item) => item.kind === 'toolResult' && item.isError).length;
      const { transcript } = resultOf(session.name, 'dropFailedToolResults');
      const failedAfter = transcript
        .slice(
          0,
          transcript.findLastIndex((item) => item.kind === 'user'),
        )
        .filter((item) => item.kind === 'toolResult' && item.isError).length;
      expect(failedAfter, session.name).toBe(0);
      if (failedBefore > 0) {
        expect(tokens.count(transcript)).toBeLessThan(tokens.count(session.transcript));
      }
    }
    // The tau-bench runs with `Error:` results do have failures before their last turn.
    expect(
      sessions.filter((session) => {
        const { transcript } = resultOf(session.name, 'dropFailedToolResults');
        return transcript.length < session.transcript.length;
      }).length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('emergencyPrune fits its budget unless the latest turn alone is larger, and keeps that turn', () => {
    for (const session of sessions) {
      const size = tokens.count(session.transcript);
      const latestTurn = session.transcript.slice(
        session.transcript.findLastIndex((item) => item.kind === 'user'),
      );
      const { transcript, metadata } = resultOf(session.name, 'emergencyPrune (25%)');
      expect(transcript.slice(-latestTurn.length)).toEqual(latestTurn);
      const fits = tokens.count(latestTurn) <= Math.floor(size / 4);
      expect(metadata, session.name).toMatchObject({ fits });
      if (fits) expect(tokens.count(transcript)).toBeLessThanOrEqual(Math.floor(size / 4));
    }
  });

  it('keepRecent and pruneLargestToolResults shrink the long session', () => {
    const name = 'all five concatenated';
    const size = tokens.count((sessions.at(-1) as Session).transcript);
    expect(tokens.count(resultOf(name, 'keepRecent (25% of tokens)').transcript)).toBeLessThan(
      size / 2,
    );
    // Placeholders keep the paths, errors and ids of what they replace, so pruning outputs alone
    // may stop short of the target: then every output is pruned, and most of the size is gone.
    const largest = resultOf(name, 'pruneLargestToolResults (to 50%)');
    const results = largest.transcript.filter((item) => item.kind === 'toolResult');
    if ((largest.metadata as { reachedTarget: boolean }).reachedTarget) {
      expect(tokens.count(largest.transcript)).toBeLessThanOrEqual(Math.floor(size / 2));
    } else {
      const prunable = results.filter(
        (item) =>
          item.kind === 'toolResult' &&
          pruneToolOutput(item, defaultToolOutputPlaceholder, tokens) !== undefined,
      );
      expect(prunable).toEqual([]);
    }
    expect(tokens.count(largest.transcript)).toBeLessThan(size * 0.6);
  });
});
