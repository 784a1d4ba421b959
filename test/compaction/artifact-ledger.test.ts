import {
  createAgentLoop,
  defineTool,
  type Item,
  MemorySessionStore,
  openAIChatModel,
  runTurn,
} from 'loopkeeper';
import { ArtifactLedger, fitSummaryText, renderArtifactTrail } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  summaryCapForTrail,
  withArtifactTrail,
} from '../../src/compaction/ledger/trail-section.js';
import { fakeServerPerTest, readSession, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
const startServer = fakeServerPerTest();

function call(id: string, name: string, args: Record<string, unknown>): Item {
  return {
    kind: 'assistant',
    id: `a-${id}`,
    toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  };
}

function result(id: string, name: string, content: string, isError = false): Item {
  return { kind: 'toolResult', id: `r-${id}`, callId: id, toolName: name, content, isError };
}

const work: Item[] = [
  { kind: 'user', id: 'u1', content: 'Fix the rounding in src/fields.py for booking ABC123.' },
  call('c1', 'open', { path: 'src/fields.py' }),
  result('c1', 'open', '1:def round_it():\n2:    return 1'),
  call('c2', 'edit', { path: 'src/fields.py', search: 'return 1', replace: 'return 2' }),
  result('c2', 'edit', 'E999 IndentationError: unexpected indent', true),
  call('c3', 'bash', { command: 'python reproduce.py' }),
  result('c3', 'bash', 'Traceback (most recent call last):\nValueError: bad rounding'),
  call('c4', 'edit', { path: 'src/fields.py', search: 'return 1', replace: 'return 2' }),
  result('c4', 'edit', 'File updated.'),
  call('c5', 'bash', { command: 'python reproduce.py' }),
  result('c5', 'bash', '345'),
];

describe('ArtifactLedger', () => {
  it('records files with what was done to them, commands with their outcome, errors with whether a later call fixed them, and identifiers', () => {
    const ledger = new ArtifactLedger();
    ledger.append(work);
    const data = ledger.toJSON();
    expect(data.steps).toBe(5);
    expect(data.files.find((file) => file.path === 'src/fields.py')).toEqual({
      path: 'src/fields.py',
      actions: ['mentioned', 'read', 'edited'],
      lastStep: 4,
      uses: 4,
    });
    expect(data.commands).toEqual([
      { command: 'python reproduce.py', tool: 'bash', runs: 2, lastStep: 5, outcome: 'ok' },
    ]);
    expect(data.errors.map((error) => [error.line, error.resolved])).toEqual([
      // The edit of the same file succeeded later, and so did the same command.
      ['E999 IndentationError: unexpected indent', true],
      ['Traceback (most recent call last):', true],
      ['ValueError: bad rounding', true],
    ]);
    expect(data.identifiers.map((identifier) => identifier.value)).toContain('ABC123');
  });

  it('is the same whether the items come one at a time or at once (a fold over the log)', () => {
    const once = new ArtifactLedger();
    once.append(work);
    const stepwise = new ArtifactLedger();
    for (const item of work) stepwise.append([item]);
    expect(stepwise.toJSON()).toEqual(once.toJSON());
  });

  it('renders the most recent and open facts first, within its budget, and never a path twice', () => {
    const ledger = new ArtifactLedger();
    ledger.append(work.slice(0, 7));
    const rendered = renderArtifactTrail({ ledger: ledger.toJSON(), maxTokens: 400, tokens });
    // No later call fixed either failure yet: the newest (the command's) lead, the edit's follows.
    expect(rendered.errors.slice(0, 2).join('\n')).toContain('ValueError: bad rounding');
    expect(rendered.errors.at(-1)).toContain('E999 IndentationError');
    expect(rendered.artifacts.filter((line) => line.includes('src/fields.py'))).toHaveLength(1);
    const small = renderArtifactTrail({ ledger: ledger.toJSON(), maxTokens: 30, tokens });
    expect(small.omitted).toBeGreaterThan(0);
    const smallTokens = [...small.artifacts, ...small.errors].reduce(
      (total, line) => total + tokens.countText(line) + 1,
      0,
    );
    expect(smallTokens).toBeLessThanOrEqual(30);
  });

  it("renders compactly: paths under what the work did with them, a step's errors on one line, commands after the facts", () => {
    const ledger = new ArtifactLedger();
    const items: Item[] = [{ kind: 'user', id: 'u', content: 'Fix it.' }];
    for (let index = 0; index < 6; index += 1) {
      items.push(
        call(`o${index}`, 'open', { path: `src/module_${index}.py` }),
        result(`o${index}`, 'open', '1:pass'),
      );
    }
    items.push(
      call('e', 'edit', { path: 'src/module_0.py' }),
      result(
        'e',
        'edit',
        'ERRORS:\n- E999 IndentationError: unexpected indent\n- F821 undefined name x',
        true,
      ),
      call('b', 'bash', { command: 'python -m pytest tests/test_module.py' }),
      result('b', 'bash', '3 passed'),
    );
    ledger.append(items);
    const rendered = renderArtifactTrail({ ledger: ledger.toJSON(), maxTokens: 400, tokens });
    expect(rendered.artifacts).toEqual([
      '- edited: src/module_0.py',
      '- used: tests/test_module.py',
      '- read: src/module_5.py, src/module_4.py, src/module_3.py, src/module_2.py, src/module_1.py',
      '- $ python -m pytest tests/test_module.py → ok (step 8)',
    ]);
    expect(rendered.errors).toEqual([
      // The bare `ERRORS:` heading of the linter's report says nothing and is left out.
      '- step 7: - E999 IndentationError: unexpected indent | - F821 undefined name x',
    ]);
    // Without room for the command, the facts it names are still listed.
    const tight = renderArtifactTrail({ ledger: ledger.toJSON(), maxTokens: 75, tokens });
    expect(tight.artifacts.join('\n')).toContain('tests/test_module.py');
    expect(tight.artifacts.join('\n')).not.toContain('$ python');
  });

  it('in the loop: the session keeps it as items are logged, and rebuilding it from the log (and reopening the session) gives the same ledger', async () => {
    const server = await startServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'pytest -x' } }] },
        {
          toolCalls: [
            { id: 'call_2', name: 'edit', arguments: { path: 'src/app.py', text: 'fix' } },
          ],
        },
        { toolCalls: [{ id: 'call_3', name: 'bash', arguments: { command: 'pytest -x' } }] },
        { text: 'Fixed src/app.py; order R2D2X9 is refunded.' },
        { text: 'Nothing else to do.' },
      ],
    });
    let runs = 0;
    const bash = defineTool({
      name: 'bash',
      description: 'Runs a command.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string' } },
        required: ['command'],
      },
      execute: () => {
        runs += 1;
        return runs === 1 ? 'FAILED tests/test_app.py::test_refund - KeyError: R2D2X9' : '1 passed';
      },
    });
    const edit = defineTool({
      name: 'edit',
      description: 'Edits a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      execute: () => 'File updated.',
    });
    const store = new MemorySessionStore();
    const options = {
      model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'gpt-test' }),
      tools: [bash, edit],
      store,
      tokens,
    };
    const loop = createAgentLoop(options);
    loop.start();
    expect((await runTurn(loop, 'Refund order R2D2X9: tests fail.')).outcome).toBe('completed');
    expect((await runTurn(loop, 'Anything else?')).outcome).toBe('completed');
    const live = loop.session.ledger.toJSON();
    loop.stop();

    const events = await readSession(store, loop.session.sessionId);
    expect(ArtifactLedger.fromEvents(events).toJSON()).toEqual(live);
    expect(live.files.find((file) => file.path === 'src/app.py')?.actions).toContain('edited');
    expect(live.commands).toMatchObject([{ command: 'pytest -x', runs: 2, outcome: 'ok' }]);
    expect(live.errors).toMatchObject([
      { line: 'FAILED tests/test_app.py::test_refund - KeyError: R2D2X9', resolved: true },
    ]);

    const reopened = createAgentLoop({ ...options, sessionId: loop.session.sessionId });
    await reopened.session.open();
    expect(reopened.session.ledger.toJSON()).toEqual(live);
  });
});

describe('the trail in a summary', () => {
  const backendText = [
    '## Goal\n- Fix the rounding.',
    '## Decisions and constraints\n- None.',
    '## Progress\n- Edited src/fields.py.',
    // A bare path the backend found in a directory listing, and a note of its own.
    '## Files and artifacts\n- AUTHORS.rst\n- src/fields.py has the bug',
    '## Errors seen\n- None.',
    '## Next step\n- Run the tests.',
  ].join('\n\n');

  it("with the session's whole ledger, leaves out bare paths only an output showed; without it, keeps them", () => {
    const ledger = new ArtifactLedger();
    ledger.append(work);
    const complete = withArtifactTrail({
      text: backendText,
      ledger,
      maxTokens: 400,
      tokens,
      complete: true,
    });
    expect(complete).toContain('- edited: src/fields.py');
    expect(complete).not.toContain('AUTHORS.rst');
    expect(complete).toContain('src/fields.py has the bug');
    const partial = withArtifactTrail({ text: backendText, ledger, maxTokens: 400, tokens });
    expect(partial).toContain('- AUTHORS.rst');
  });

  it('leaves out the backend\'s call lines the trail shows, and a "Calls made" heading left with none after it', () => {
    const ledger = new ArtifactLedger();
    ledger.append(work);
    const text = [
      '## Goal\n- Fix the rounding.',
      [
        '## Progress',
        '- Earlier: 3 tool calls (bash ×3); 0 failed.',
        '- Earlier: Calls made:',
        '- Earlier: bash: `git log -1`',
        '- Earlier: Calls made (the last 2 of 9 distinct):',
        '- 2 tool calls (bash ×2); 0 failed.',
        '- Calls made:',
        '- bash: `python reproduce.py`',
      ].join('\n'),
    ].join('\n\n');
    const progress =
      withArtifactTrail({ text, ledger, maxTokens: 400, tokens, complete: true })
        .split('## Progress\n')[1]
        ?.split('\n\n')[0] ?? '';
    expect(progress.split('\n')).toEqual([
      '- Earlier: 3 tool calls (bash ×3); 0 failed.',
      // Its call is one the trail does not show, so the heading stays with it.
      '- Earlier: Calls made:',
      '- Earlier: bash: `git log -1`',
      '- 2 tool calls (bash ×2); 0 failed.',
    ]);
  });

  it('raises the summary cap to what the trail needs, up to the whole target', () => {
    const ledger = new ArtifactLedger();
    const items: Item[] = [{ kind: 'user', id: 'u', content: 'Fix it.' }];
    for (let index = 0; index < 40; index += 1) {
      items.push(
        call(`c${index}`, 'bash', { command: `python check_${index}.py` }),
        result(
          `c${index}`,
          'bash',
          `ValueError: check ${index} failed in src/pkg/module_${index}.py`,
        ),
      );
    }
    ledger.append(items);
    const options = { baseCap: 200, frameTokens: 80, ledger, tokens };
    expect(summaryCapForTrail({ ...options, targetTokens: 1_000 })).toBe(1_000);
    const roomy = summaryCapForTrail({ ...options, targetTokens: 100_000 });
    expect(roomy).toBeGreaterThan(200);
    expect(roomy).toBeLessThan(50_000);
    const small = new ArtifactLedger();
    small.append([{ kind: 'user', id: 'u', content: 'Fix src/a.py.' }]);
    expect(summaryCapForTrail({ ...options, ledger: small, targetTokens: 1_000 })).toBe(200);
  });
});

describe('fitSummaryText with sized sections', () => {
  const filler = (label: string, count: number) =>
    Array.from({ length: count }, (_, index) => `- ${label} line ${index} ${'word '.repeat(12)}`);

  it('holds every section to its share, so a long goal and a long progress cannot crowd out the files and errors', () => {
    const goal = `- First request (verbatim): ${'Here is a demonstration of the task. '.repeat(300)}Now fix src/real_task.py.`;
    const text = [
      `## Goal\n${goal}`,
      `## Decisions and constraints\n${filler('decision', 20).join('\n')}`,
      `## Progress\n${filler('progress', 60).join('\n')}`,
      `## Files and artifacts\n${Array.from({ length: 20 }, (_, index) => `- src/module_${index}.py`).join('\n')}`,
      `## Errors seen\n${Array.from({ length: 10 }, (_, index) => `- E999 SyntaxError in module_${index}`).join('\n')}`,
      '## Next step\n- Continue.',
    ].join('\n\n');
    const fitted = fitSummaryText({ text, maxTokens: 1_000, tokens });
    expect(tokens.countText(fitted.text)).toBeLessThanOrEqual(1_000);
    for (let index = 0; index < 20; index += 1)
      expect(fitted.text).toContain(`src/module_${index}.py`);
    for (let index = 0; index < 10; index += 1) expect(fitted.text).toContain(`module_${index}\n`);
    // The goal keeps its head and its tail, with one note that the log keeps it whole.
    expect(fitted.goalShortened).toBe(true);
    expect(fitted.text).toContain('First request (verbatim): Here is a demonstration');
    expect(fitted.text).toContain('Now fix src/real_task.py.');
    expect(fitted.text.match(/the session log keeps it whole/g)).toHaveLength(1);
  });

  it('clips a text once: fitting an already fitted summary tighter never cuts into its note, and keeps one note', () => {
    const goal = `- First request (verbatim): ${'alpha beta gamma delta '.repeat(400)}omega.`;
    const text = `## Goal\n${goal}\n\n## Decisions and constraints\n- None.\n\n## Progress\n- None.\n\n## Files and artifacts\n- a.py\n\n## Errors seen\n- None.\n\n## Next step\n- Go on.`;
    const once = fitSummaryText({ text, maxTokens: 600, tokens }).text;
    const twice = fitSummaryText({ text: once, maxTokens: 300, tokens }).text;
    const notes = twice.match(
      /\[… about \d+ tokens of this request left out here; the session log keeps it whole …\]/g,
    );
    expect(notes).toHaveLength(1);
    expect(twice).not.toMatch(/…\][^\n]*…\]/);
    expect(twice).toContain('omega.');
    // The count in the note grew by what the second cut left out.
    const count = (fitted: string) => Number(/about (\d+) tokens/.exec(fitted)?.[1]);
    expect(count(twice)).toBeGreaterThan(count(once));
  });

  it('sends only the sections with a fact: no heading and no placeholder for an empty one', () => {
    const text = [
      '## Goal\n- First request (verbatim): Fix src/app.py.',
      '## Decisions and constraints\n- None recorded.',
      '## Progress\n- No tool activity or replies in this part.',
      '## Files and artifacts\n- edited: src/app.py',
      '## Errors seen\n- None.',
      '## Next step\n- Continue from the messages that follow this record.',
    ].join('\n\n');
    const fitted = fitSummaryText({ text, maxTokens: 1_000, tokens }).text;
    expect(fitted).toBe(
      '## Goal\n- First request (verbatim): Fix src/app.py.\n\n## Files and artifacts\n- edited: src/app.py',
    );
    // With no fact at all, the six headings alone.
    const empty = fitSummaryText({
      text: text.replace(/^- (?:First|edited).*$/gm, '- None.'),
      maxTokens: 1_000,
      tokens,
    });
    expect(empty.text.match(/^## /gm)).toHaveLength(6);
  });

  it('keeps the head of a ranked line that lists several facts when the whole line does not fit', () => {
    const ids = Array.from({ length: 8 }, (_, index) => `ORD-${1000 + index}`);
    const text = `## Goal\n- First request (verbatim): Ship the orders.\n\n## Files and artifacts\n- ids: ${ids.join(', ')}`;
    const whole = tokens.countText(text);
    const fitted = fitSummaryText({ text, maxTokens: whole - 12, tokens });
    expect(tokens.countText(fitted.text)).toBeLessThanOrEqual(whole - 12);
    expect(fitted.text).toMatch(/^- ids: ORD-1000, ORD-1001/m);
    expect(fitted.text).not.toContain('ORD-1007');
  });

  it('never leaves half of a surrogate pair where it cuts', () => {
    const goal = `- First request (verbatim): ${'😀'.repeat(3_000)}`;
    const text = `## Goal\n${goal}\n\n## Decisions and constraints\n- None.\n\n## Progress\n- None.\n\n## Files and artifacts\n- a.py\n\n## Errors seen\n- None.\n\n## Next step\n- Go on.`;
    const fitted = fitSummaryText({ text, maxTokens: 200, tokens }).text;
    expect(fitted).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
  });
});
