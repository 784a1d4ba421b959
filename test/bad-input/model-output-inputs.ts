import { defineTool, validateTranscript } from 'loopkeeper';
import { type FakeReply, fakeFaults } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { ToolResultItem } from 'loopkeeper/transcript';
import { expect } from 'vitest';
import {
  type CatalogEntry,
  expectRunCompleted,
  expectRunFailed,
  type LoopProbe,
  probeLoop,
} from './catalog-entry.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}`,
});

/** Runs the probe with the `lookup` tool; `replies` answer the bad turn. */
export function probeOverHttp(
  tokens: TokenCounter,
  replies: readonly FakeReply[],
): Promise<LoopProbe> {
  return probeLoop({ tokens, tools: [lookup], replies });
}

/** A 200 completion whose assistant message is exactly `message`, as a sloppy server sends it. */
export function rawAssistant(message: Readonly<Record<string, unknown>>): FakeReply {
  return fakeFaults.rawResponse({
    body: {
      id: 'chatcmpl-odd',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-test',
      choices: [
        { index: 0, message: { role: 'assistant', ...message }, finish_reason: 'tool_calls' },
      ],
    },
  });
}

/** A malformed answer fails the run as an invalid response and never reaches the log. */
function refusedAnswer(probe: LoopProbe): string {
  expect(probe.appended.map((item) => item.kind)).toEqual(['user']);
  return `${expectRunFailed(probe, { name: 'ModelError', code: 'model_invalid_response' })}; the answer is not logged`;
}

function toolResults(probe: LoopProbe): ToolResultItem[] {
  return probe.appended.filter((item): item is ToolResultItem => item.kind === 'toolResult');
}

export const modelOutputInputs: readonly CatalogEntry[] = [
  {
    area: 'model output',
    input: 'tool call with invalid JSON arguments',
    check: async ({ tokens }) => {
      const probe = await probeOverHttp(tokens, [
        { toolCalls: [{ name: 'lookup', arguments: '{"word": "lo' }] },
      ]);
      expectRunCompleted(probe);
      const [answer] = toolResults(probe);
      expect(answer?.isError).toBe(true);
      expect(answer?.content).toMatch(/not valid JSON/);
      return 'safe: an isError result asks the model to call again with valid JSON; the run goes on';
    },
  },
  {
    area: 'model output',
    input: 'tool call to an unknown tool name',
    check: async ({ tokens }) => {
      const probe = await probeOverHttp(tokens, [
        { toolCalls: [{ name: 'delete_everything', arguments: {} }] },
      ]);
      expectRunCompleted(probe);
      const [answer] = toolResults(probe);
      expect(answer?.isError).toBe(true);
      expect(answer?.content).toContain('Available tools: lookup');
      return 'safe: an isError result lists the available tools; nothing runs';
    },
  },
  {
    area: 'model output',
    input: 'tool call missing a required argument',
    check: async ({ tokens }) => {
      const probe = await probeOverHttp(tokens, [
        { toolCalls: [{ name: 'lookup', arguments: { term: 'loop' } }] },
      ]);
      expectRunCompleted(probe);
      expect(toolResults(probe)[0]?.content).toMatch(/missing required property "word"/);
      return 'safe: an isError result names the missing property';
    },
  },
  {
    area: 'model output',
    input: 'empty choices from the server',
    check: async ({ tokens }) => {
      const probe = await probeOverHttp(tokens, [
        fakeFaults.rawResponse({
          body: { id: 'x', object: 'chat.completion', created: 1, model: 'gpt-test', choices: [] },
        }),
      ]);
      return expectRunFailed(probe, { name: 'ModelError', code: 'model_invalid_response' });
    },
  },
  {
    area: 'model output',
    input: 'parallel tool calls sharing one id, and an id reused from an earlier answer',
    check: async ({ tokens }) => {
      const probe = await probeOverHttp(tokens, [
        {
          toolCalls: [
            { id: 'call_same', name: 'lookup', arguments: { word: 'a' } },
            { id: 'call_same', name: 'lookup', arguments: { word: 'b' } },
          ],
        },
        { toolCalls: [{ id: 'call_same', name: 'lookup', arguments: { word: 'c' } }] },
      ]);
      expectRunCompleted(probe);
      const callIds = toolResults(probe).map((result) => result.callId);
      expect(callIds).toHaveLength(3);
      expect(new Set(callIds).size).toBe(3);
      expect(validateTranscript(probe.appended)).toEqual([]);
      return 'safe: repeated ids get fresh ones, so every call keeps exactly one result';
    },
  },
  {
    area: 'model output',
    input: 'assistant content that is a number (a sloppy compatible server)',
    check: async ({ tokens }) =>
      refusedAnswer(await probeOverHttp(tokens, [rawAssistant({ content: 42 })])),
  },
  {
    area: 'model output',
    input: 'tool call arguments sent as a JSON object instead of a string',
    check: async ({ tokens }) =>
      refusedAnswer(
        await probeOverHttp(tokens, [
          rawAssistant({
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'lookup', arguments: { word: 1 } } },
            ],
          }),
        ]),
      ),
  },
  {
    area: 'model output',
    input: 'tool call with an empty name',
    check: async ({ tokens }) =>
      refusedAnswer(
        await probeOverHttp(tokens, [
          rawAssistant({
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: '', arguments: '{}' } }],
          }),
        ]),
      ),
  },
];
