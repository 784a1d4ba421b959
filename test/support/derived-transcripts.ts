import { loadTranscriptFixtures, type TranscriptFixture } from './transcripts.js';

/**
 * Transcripts derived from the bundled five (test/fixtures/transcripts, MIT), for the shapes
 * those five lack: a long first request (a demonstration before the task), many error lines
 * across edits, and many identifiers. Each is built deterministically from the bundled files;
 * `source` says how. The text we add (the demonstration's frame, the failed attempts' linter
 * and traceback lines) is ours, written in the formats SWE-agent prints.
 */

// biome-ignore lint/suspicious/noExplicitAny: raw OpenAI chat messages as stored on disk
type ChatMessage = any;

function fixture(fixtures: readonly TranscriptFixture[], part: string): TranscriptFixture {
  const found = fixtures.find((each) => each.file.includes(part));
  if (found === undefined) throw new Error(`No bundled transcript named like ${part}`);
  return found;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  }
  return '';
}

/** A recorded run written out as one block of text, the way SWE-agent shows a demonstration. */
function demonstrationOf(messages: readonly ChatMessage[], maxOutput: number): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'user') lines.push(textOf(message.content));
    if (message.role === 'assistant') {
      if (textOf(message.content) !== '') lines.push(textOf(message.content));
      for (const call of message.tool_calls ?? []) {
        lines.push('```', `${call.function.name} ${call.function.arguments}`, '```');
      }
    }
    if (message.role === 'tool') {
      const output = textOf(message.content);
      lines.push(output.length > maxOutput ? `${output.slice(0, maxOutput)}\n…` : output);
    }
  }
  return lines.join('\n');
}

/**
 * The marshmallow run whose first request opens with the whole CTF run as a demonstration
 * (about 3,000 tokens), as SWE-agent's demonstrations do, before the real task.
 */
function demonstrationThenTask(fixtures: readonly TranscriptFixture[]): TranscriptFixture {
  const task = fixture(fixtures, 'marshmallow');
  const example = fixture(fixtures, 'ctf-web');
  const [system, first, ...rest] = task.messages;
  const demonstration = [
    'Here is a demonstration of how to correctly accomplish this task.',
    'It is included to show you how to correctly use the interface.',
    'You do not need to follow exactly what is done in the demonstration.',
    '--- DEMONSTRATION ---',
    demonstrationOf(example.messages, 600),
    '--- END OF DEMONSTRATION ---',
    '',
    textOf(first.content),
  ].join('\n');
  return {
    file: 'derived_demonstration-then-task.json',
    source: `derived: ${task.file} with ${example.file} written out as a demonstration before its first request`,
    messages: [system, { ...first, content: demonstration }, ...rest],
  };
}

const editTools = new Set(['edit', 'insert', 'create']);

function failedAttempt(call: ChatMessage, step: number): { reply: string; output: string } {
  const name = call.function.name;
  const path = (() => {
    try {
      const parsed = JSON.parse(call.function.arguments);
      return String(parsed.path ?? parsed.filename ?? 'src/marshmallow/fields.py');
    } catch {
      return 'src/marshmallow/fields.py';
    }
  })();
  if (editTools.has(name)) {
    const line = 1470 + step * 3;
    return {
      reply: `The ${name} did not apply; let me try it once more.`,
      output: [
        'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.',
        '',
        'ERRORS:',
        `- E999 IndentationError: unexpected indent (${path}, line ${line})`,
        `- F821 undefined name 'precision_${step}'`,
        '',
        'This is how your edit would have looked if applied',
        '-------------------------------------------------',
        `[File: ${path} (1997 lines total)]`,
        `${line}:        return int(value.total_seconds() / base_unit.total_seconds())`,
        '-------------------------------------------------',
        'Your changes have NOT been applied. Please fix your edit command and try again.',
      ].join('\n'),
    };
  }
  const command = (() => {
    try {
      return String(JSON.parse(call.function.arguments).command ?? name);
    } catch {
      return name;
    }
  })();
  return {
    reply: `That failed; retrying \`${command}\`.`,
    output: [
      'Traceback (most recent call last):',
      `  File "/testbed/reproduce.py", line ${step + 2}, in <module>`,
      `    td_field.serialize("td_field_${step}", obj)`,
      `AttributeError: module 'marshmallow.fields' has no attribute 'TimeDelta${step}'`,
      `bash: line ${step + 1}: ${command.split(' ')[0]}_${step}: command not found`,
    ].join('\n'),
  };
}

/**
 * The marshmallow run where every tool call (but the final submit) is first tried once and
 * fails: edits with a linter report, commands with a traceback, so error lines accumulate
 * across edits of the same files.
 */
function errorsAcrossEdits(fixtures: readonly TranscriptFixture[]): TranscriptFixture {
  const task = fixture(fixtures, 'marshmallow');
  const messages: ChatMessage[] = [];
  let step = 0;
  for (const message of task.messages) {
    const calls: ChatMessage[] = message.role === 'assistant' ? (message.tool_calls ?? []) : [];
    const retried = calls.filter((call) => call.function.name !== 'submit');
    if (retried.length > 0) {
      step += 1;
      const attempts = retried.map((call) => ({ call, ...failedAttempt(call, step) }));
      messages.push({
        role: 'assistant',
        content: textOf(message.content),
        tool_calls: attempts.map(({ call }) => ({ ...call, id: `${call.id}__failed` })),
      });
      for (const { call, output } of attempts) {
        messages.push({ role: 'tool', tool_call_id: `${call.id}__failed`, content: output });
      }
      messages.push({ ...message, content: attempts[0]?.reply ?? '' });
      continue;
    }
    messages.push(message);
  }
  return {
    file: 'derived_errors-across-edits.json',
    source: `derived: ${task.file} with a failed first attempt (linter report or traceback, text ours) before each tool call`,
    messages,
  };
}

/** The three tau-bench airline runs as one session: three customers served one after another. */
function threeCustomers(fixtures: readonly TranscriptFixture[]): TranscriptFixture {
  const runs = fixtures.filter((each) => each.file.startsWith('tau-bench_airline'));
  const messages = runs.flatMap((run, index) =>
    run.messages
      .filter((message: ChatMessage) => index === 0 || message.role !== 'system')
      .map((message: ChatMessage) =>
        message.role === 'assistant' && message.tool_calls !== undefined
          ? {
              ...message,
              tool_calls: message.tool_calls.map((call: ChatMessage) => ({
                ...call,
                id: `${call.id}__run${index}`,
              })),
            }
          : message.role === 'tool'
            ? { ...message, tool_call_id: `${message.tool_call_id}__run${index}` }
            : message,
      ),
  );
  return {
    file: 'derived_three-customers.json',
    source: `derived: ${runs.map((run) => run.file).join(', ')} concatenated as one session`,
    messages,
  };
}

/**
 * The derived transcripts, built from the bundled ones.
 */
export function loadDerivedTranscripts(): readonly TranscriptFixture[] {
  const fixtures = loadTranscriptFixtures();
  return [demonstrationThenTask(fixtures), errorsAcrossEdits(fixtures), threeCustomers(fixtures)];
}
