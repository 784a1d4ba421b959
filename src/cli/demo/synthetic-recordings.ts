import type { Recording } from '../../testing/replay-plan.js';
import type { Item } from '../../transcript/types.js';

/** One coding task of a synthetic session: the module it works on and the bug it fixes. */
interface Task {
  readonly module: string;
  readonly symbol: string;
  readonly error: string;
}

const tasks: readonly Task[] = [
  {
    module: 'billing/invoice',
    symbol: 'totalDue',
    error: "TypeError: Cannot read properties of undefined (reading 'amount')",
  },
  {
    module: 'auth/session',
    symbol: 'refreshToken',
    error: 'Error: token expired at 2026-11-30T23:59:59Z',
  },
  {
    module: 'search/ranker',
    symbol: 'scoreDocument',
    error: 'RangeError: weight must be in [0, 1], got 1.25',
  },
  {
    module: 'export/csv',
    symbol: 'writeRows',
    error: 'Error: EACCES: permission denied, open /var/export/report-4471.csv',
  },
  {
    module: 'queue/worker',
    symbol: 'handleJob',
    error: 'TimeoutError: job JOB-20931 exceeded 30000 ms',
  },
];

/** A source file of about `lines` lines that mentions the task's symbol. */
function sourceFile(task: Task, lines: number): string {
  const body = Array.from(
    { length: lines },
    (_, line) =>
      `${String(line + 1).padStart(4)}  const step${line} = ${task.symbol}Part(${line}, options);`,
  );
  return [`// src/${task.module}.ts`, ...body].join('\n');
}

/** A failing test run: a long log of passing tests, then the failure with its path and line. */
function testLog(task: Task, passing: number): string {
  const passed = Array.from(
    { length: passing },
    (_, index) => `  ✓ test/${task.module}.test.ts > case ${index} (${(index % 7) + 1} ms)`,
  );
  return [
    `$ npx vitest run test/${task.module}.test.ts`,
    ...passed,
    `  × test/${task.module}.test.ts > ${task.symbol} handles the empty case`,
    `    ${task.error}`,
    `     ❯ src/${task.module}.ts:42:17`,
    ` Test Files  1 failed (1)`,
    `      Tests  1 failed | ${passing} passed (${passing + 1})`,
  ].join('\n');
}

/** One session: the task, a read, a failing run, an edit, a passing run, two follow-up turns. */
function session(task: Task, index: number): Item[] {
  const id = (name: string) => `syn${index}_${name}`;
  const call = (name: string, tool: string, args: unknown): Item => ({
    kind: 'assistant',
    id: id(`a_${name}`),
    toolCalls: [{ id: id(`c_${name}`), name: tool, arguments: JSON.stringify(args) }],
  });
  const result = (name: string, tool: string, content: string, isError = false): Item => ({
    kind: 'toolResult',
    id: id(`r_${name}`),
    callId: id(`c_${name}`),
    toolName: tool,
    content,
    isError,
  });
  const path = `src/${task.module}.ts`;
  return [
    {
      kind: 'user',
      id: id('u0'),
      content: `The tests for ${path} fail since yesterday's release. Find out why ${task.symbol} breaks and fix it without changing its signature.`,
    },
    call('read', 'read_file', { path }),
    result('read', 'read_file', sourceFile(task, 180)),
    call('test', 'bash', { command: `npx vitest run test/${task.module}.test.ts` }),
    result('test', 'bash', testLog(task, 120), true),
    call('edit', 'edit_file', {
      path,
      line: 42,
      replace: `if (input === undefined) return empty;`,
    }),
    result('edit', 'edit_file', `Edited ${path}: 1 line changed at line 42.`),
    call('retest', 'bash', { command: `npx vitest run test/${task.module}.test.ts` }),
    result('retest', 'bash', testLog(task, 121).replace(/ {2}× [^\n]*\n[^\n]*\n[^\n]*\n/, '')),
    {
      kind: 'assistant',
      id: id('done0'),
      text: `${task.symbol} read a field of an input that can be missing; ${path}:42 now returns early for it, and the tests pass.`,
    },
    {
      kind: 'user',
      id: id('u1'),
      content: 'Add a regression test for it and run the whole suite.',
    },
    call('suite', 'bash', { command: 'npm test' }),
    result('suite', 'bash', testLog(task, 300).replace(/ {2}× [^\n]*\n[^\n]*\n[^\n]*\n/, '')),
    {
      kind: 'assistant',
      id: id('done1'),
      text: `Added test/${task.module}.test.ts "handles a missing input"; the whole suite passes.`,
    },
  ];
}

/**
 * Five synthetic coding-agent sessions (reads, failing test runs with long logs, edits), made
 * in code. The installed package ships no third-party transcripts, so `loopkeeper demo` run
 * from it replays these; a source checkout replays the real recordings under
 * test/fixtures/transcripts instead.
 */
export function syntheticRecordings(): Recording[] {
  return tasks.map((task, index) => ({
    name: `synthetic-${task.module.replace('/', '-')}`,
    items: session(task, index),
  }));
}
