import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentLoop, FileSessionStore, runTurn } from 'loopkeeper';
import { createGenAiTracing } from 'loopkeeper/otel';
import { fakeFaults } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { redactSecrets } from '../../src/errors/redact-secrets.js';
import { memoryTracer } from '../otel/span-tree.js';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';
import { sharedTokenCounter } from '../support/loop-harness.js';

const KEY = 'sk-proj-Zx81trustMeThisIsSecret00';
let tokens: TokenCounter;
const server = fakeServerPerTest();
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-redact-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('provider error text with a credential in it', () => {
  it('is redacted in the log, telemetry, spans and CLI output', async () => {
    // A proxy that echoes the request's headers in its error body.
    server().enqueue(
      fakeFaults.httpError({
        status: 401,
        message: `Invalid credentials. Received headers: {"authorization":"Bearer ${KEY}","x-api-key":"${KEY}"}; also api_key=${KEY}`,
      }),
    );
    const store = new FileSessionStore({ directory });
    const { tracer, exporter } = memoryTracer();
    const tracing = createGenAiTracing({ tracer });
    const loop = createAgentLoop({
      model: tracing.wrapModel(fakeServerModel(server(), { maxRetries: 0 })),
      store,
      sessionId: 's',
      tokens,
    });
    tracing.attach(loop);
    const finished: unknown[] = [];
    loop.on('RunFinished', (event) => finished.push(event));
    loop.start();
    const result = await runTurn(loop, 'Hello?');
    loop.stop();
    await store.close();

    expect(result.error?.code).toBe('model_auth');
    expect(result.error?.message).toContain('[redacted]');
    const places = {
      log: await readFile(join(directory, 's.jsonl'), 'utf8'),
      telemetry: JSON.stringify(finished),
      spans: JSON.stringify(
        exporter.getFinishedSpans().map((span) => [span.status, span.events, span.attributes]),
      ),
      cli: '',
    };
    let cli = '';
    const sink = {
      write: (chunk: string) => {
        cli += chunk;
        return true;
      },
      isTTY: false,
    };
    await runCli({
      argv: ['show', 's', '--dir', directory],
      environment: { stdout: sink, stderr: sink, env: {}, cwd: directory },
    });
    places.cli = cli;
    for (const [place, text] of Object.entries(places)) {
      expect(text.includes('Received headers'), `${place} holds the error`).toBe(true);
      expect(text.includes('Zx81trustMe'), `${place} leaks the key`).toBe(false);
    }
  });

  it('redactSecrets covers Authorization headers, bearer tokens, sk- keys and api-key fields', () => {
    const cases = [
      `Authorization: Bearer ${KEY}`,
      `{"authorization":"Basic dXNlcjpwYXNzd29yZA=="}`,
      `token Bearer abcdefghijklmnop1234 rejected`,
      `Incorrect API key ${KEY}`,
      `api-key: 9f8e7d6c5b4a`,
      `https://host/v1?x=1&api_key=9f8e7d6c5b4a&y=2`,
      `"x-api-key": "9f8e7d6c5b4a"`,
    ];
    const leaks = cases.filter((text) =>
      /Zx81trust|dXNlcjpw|abcdefghijklmnop|9f8e7d6c/.test(redactSecrets(text)),
    );
    expect(leaks).toEqual([]);
    expect(redactSecrets('plain text, no secrets: sk-1, bearer of news')).toBe(
      'plain text, no secrets: sk-1, bearer of news',
    );
  });
});
