import type { ModelMessage } from 'ai';
import {
  type CompactionBackend,
  contextWindowTrigger,
  createCompactor,
  createTokenCounter,
} from 'loopkeeper';
import { compactionPrepareStep } from 'loopkeeper/ai-sdk';
import type { ArtifactLedgerData } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const ERROR_LINE = "ModuleNotFoundError: No module named 'yaml_loader'";
const FAILED_OUTPUT = [
  'Traceback (most recent call last):',
  '  File "src/tools/load_config.py", line 12, in <module>',
  ERROR_LINE,
].join('\n');

/** A listing of about 250 tokens, different for each step, with no path or error in it. */
function listing(step: number): string {
  return Array.from(
    { length: 30 },
    (_, line) => `row ${step}.${line}: total=${step * 31 + line} ok`,
  ).join('\n');
}

/** The messages of a run after `steps` tool steps; the first step fails with ERROR_LINE. */
function messagesAfter(steps: number): ModelMessage[] {
  const messages: ModelMessage[] = [
    { role: 'user', content: 'Load config/loader_settings.yaml and report every total.' },
  ];
  for (let step = 0; step < steps; step += 1) {
    const toolCallId = `call_${step}`;
    const command =
      step === 0
        ? 'python scripts/load_settings.py config/loader_settings.yaml'
        : `report --page ${step}`;
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId, toolName: 'bash', input: { command } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName: 'bash',
            output: {
              type: 'text',
              value: step === 0 ? FAILED_OUTPUT : listing(step),
            },
          },
        ],
      },
    );
  }
  return messages;
}

/**
 * A summarizer that, like a model, writes only what it was just shown and forgets what the
 * previous summary said: the trail of older turns then has to come from the session.
 */
const forgetful: CompactionBackend = {
  name: 'forgetful',
  maxInputTokens: 100_000,
  async summarize() {
    return { text: '## Progress\n- Reported the pages shown.' };
  },
};

describe('compactionPrepareStep keeps the artifact trail of the whole conversation', () => {
  it("hands every compaction the session's ledger, which still holds the first step's error and script", async () => {
    const compactor = createCompactor({
      trigger: contextWindowTrigger({ window: 4_000, outputReserve: 0 }),
      backend: forgetful,
    });
    const seen: { ledger: ArtifactLedgerData | undefined; ids: string[] }[] = [];
    const prepareStep = compactionPrepareStep({
      compactor: {
        ...compactor,
        async compact(input) {
          seen.push({
            ledger: input.ledger?.toJSON(),
            ids: input.transcript.map((item) => item.id),
          });
          return compactor.compact(input);
        },
      },
      tokens,
    });
    let prepared: ModelMessage[] = [];
    for (let step = 0; step <= 40; step += 1) {
      ({ messages: prepared } = await prepareStep({
        messages: messagesAfter(step),
        stepNumber: step,
        steps: [],
        model: { provider: 'test', modelId: 'test' },
      } as unknown as Parameters<typeof prepareStep>[0]));
    }
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const last = seen.at(-1);
    // By the last compaction the first step is long gone from the transcript...
    expect(JSON.stringify(last?.ids)).not.toMatch(/call_0\b/);
    // ...and the ledger it is handed still holds that step's error line and script.
    expect(last?.ledger?.errors.map((error) => error.line)).toContain(ERROR_LINE);
    expect(last?.ledger?.files.map((file) => file.path)).toContain('scripts/load_settings.py');
    // The summary it writes renders them from that ledger, whatever the backend forgot.
    const sent = JSON.stringify(prepared);
    expect(sent).toContain(ERROR_LINE);
    expect(sent).toContain('scripts/load_settings.py');
  });
});
