import { CompactionError, ConfigError, ModelError, openAISummarizer } from 'loopkeeper';
import type { ModelRequest, OpenAIChatModelOptions } from 'loopkeeper/model';
import { fakeFaults } from 'loopkeeper/testing';
import { describe, expect, it, vi } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';

const server = fakeServerPerTest();

function model(options: Partial<OpenAIChatModelOptions> = {}) {
  return fakeServerModel(server(), options);
}

function request(signal = new AbortController().signal): ModelRequest {
  return { transcript: [{ kind: 'user', id: 'u1', content: 'Hello?' }], tools: [], signal };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

describe('openAIChatModel retry waits', () => {
  it('fails at once with rate_limited when retry-after is longer than maxRetryWaitMs', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 3600 }), { text: 'never sent' });
    const started = performance.now();
    const error = await failure(model({ maxRetries: 2 }).generate(request()));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).toMatchObject({
      kind: 'rate_limited',
      status: 429,
      retryable: true,
      retryAfterMs: 3_600_000,
    });
    expect(error.message).toMatch(/3600 s/);
    expect(server().requests).toHaveLength(1);
  });

  it('honours a configured cap', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 0.2 }), { text: 'never sent' });
    const error = await failure(model({ maxRetries: 2, maxRetryWaitMs: 100 }).generate(request()));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 200 });
    expect(server().requests).toHaveLength(1);
  });

  it('ends a retry wait as soon as the request is aborted', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 30 }), { text: 'never sent' });
    const controller = new AbortController();
    const pending = failure(model({ maxRetries: 2 }).generate(request(controller.signal)));
    // Aborted once the first request is in (the SDK is imported at the first request).
    await vi.waitFor(() => expect(server().requests).toHaveLength(1));
    const started = performance.now();
    controller.abort();
    const error = await pending;
    expect(performance.now() - started).toBeLessThan(1500);
    expect(error.kind).toBe('aborted');
    expect(server().requests).toHaveLength(1);
  });

  it('refuses a maxRetryWaitMs that is not a whole number >= 0', () => {
    expect(() => model({ maxRetryWaitMs: -1 })).toThrow(ConfigError);
  });
});

describe('openAISummarizer retry waits', () => {
  const summarize = (
    options: { maxRetries?: number; maxRetryWaitMs?: number },
    signal: AbortSignal,
  ) =>
    openAISummarizer({
      baseURL: server().url,
      apiKey: 'test-key',
      model: 'summary-mini',
      ...options,
    }).summarize({ transcript: [{ kind: 'user', id: 'u1', content: 'Hello?' }], signal });

  it('does not wait out a retry-after longer than maxRetryWaitMs', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 3600 }), { text: 'never sent' });
    const started = performance.now();
    const error = await summarize({ maxRetries: 2 }, new AbortController().signal).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/3600 s/);
    expect(server().requests).toHaveLength(1);
  });

  it('ends a retry wait as soon as the compaction is aborted', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 30 }), { text: 'never sent' });
    const controller = new AbortController();
    const pending = summarize({ maxRetries: 2 }, controller.signal).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    // Aborted once the first request is in (the SDK is imported at the first request).
    await vi.waitFor(() => expect(server().requests).toHaveLength(1));
    const started = performance.now();
    controller.abort();
    const error = await pending;
    expect(performance.now() - started).toBeLessThan(1500);
    expect(error).toMatchObject({ code: 'summary_aborted' });
    expect(server().requests).toHaveLength(1);
  });

  it('retries a short wait and returns the summary', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 0.05 }), {
      text: '## Goal\n- g\n\n## Decisions and constraints\n- none\n\n## Progress\n- p\n\n## Files and artifacts\n- f\n\n## Errors seen\n- none\n\n## Next step\n- n',
    });
    const result = await summarize({ maxRetries: 1 }, new AbortController().signal);
    expect(result.text).toContain('## Goal');
    expect(server().requests).toHaveLength(2);
  });
});
