import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  createApprovalPrompt,
  NO_ANSWER_REASON,
  parseApprovalAnswer,
} from '../../src/cli/run/approval-prompt.js';

const call = (callId: string) => ({
  callId,
  toolName: 'write_file',
  arguments: `{"path":"${callId}.txt","content":"x"}`,
  argumentsHash: 'sha256:0',
});

function terminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  let written = '';
  const output = {
    write: (text: string) => {
      written += text;
      return true;
    },
  };
  const prompt = createApprovalPrompt({ input, output });
  /** Resolves once the prompt has asked `count` questions in all. */
  const asked = async (count: number) => {
    while ((written.match(/Allow write_file\?/g) ?? []).length < count) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { input, prompt, asked, written: () => written };
}

describe('parseApprovalAnswer', () => {
  it.each([
    ['y', { approved: true }],
    ['YES', { approved: true }],
    ['n', { approved: false }],
    ['', { approved: false }],
    ['  no  ', { approved: false }],
    ['n not on Fridays', { approved: false, reason: 'not on Fridays' }],
    ['no: too risky', { approved: false, reason: 'too risky' }],
    ['y, go ahead', { approved: true, reason: 'go ahead' }],
  ])('reads %j', (line, answer) => {
    expect(parseApprovalAnswer(line)).toEqual(answer);
  });

  it.each(['maybe', 'nope', 'yess', 'ok'])('gives no answer for %j', (line) => {
    expect(parseApprovalAnswer(line)).toBeUndefined();
  });
});

describe('createApprovalPrompt', () => {
  it('asks once per call on a terminal, without echoing the typed answer, and returns the decisions', async () => {
    const { input, prompt, asked, written } = terminal();
    const decisions = prompt.ask([call('a'), call('b')], new AbortController().signal);
    await asked(1);
    input.write('y\n');
    await asked(2);
    input.write('n wrong file\n');
    expect(await decisions).toEqual([
      { callId: 'a', approved: true },
      { callId: 'b', approved: false, reason: 'wrong file' },
    ]);
    expect(written()).toBe(
      [
        '[approval] write_file (a) wants to run with {"path":"a.txt","content":"x"}',
        'Allow write_file? [y/N, or n <reason>] [approval] write_file (b) wants to run with {"path":"b.txt","content":"x"}',
        'Allow write_file? [y/N, or n <reason>] ',
      ].join('\n'),
    );
    prompt.close();
  });

  it('resolves null when aborted while a question waits (Ctrl+C)', async () => {
    const { prompt, asked } = terminal();
    const controller = new AbortController();
    const decisions = prompt.ask([call('a')], controller.signal);
    await asked(1);
    controller.abort();
    expect(await decisions).toBeNull();
    prompt.close();
  });

  it('denies the calls left when the input ends, and keeps answers that arrived before the question', async () => {
    const { input, prompt } = terminal();
    input.end('y\n');
    expect(await prompt.ask([call('a'), call('b')], new AbortController().signal)).toEqual([
      { callId: 'a', approved: true },
      { callId: 'b', approved: false, reason: NO_ANSWER_REASON },
    ]);
    prompt.close();
  });
});
