import { type AddressInfo, createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';

// The offline examples shown in README.md and docs/ are run as they are; the ones that need an
// API key (the quick start) are only type-checked.
const offlineExamples = [
  'readme-strategies',
  'readme-custom-strategy',
  'readme-telemetry',
  'readme-otel',
  'readme-file-store',
  'readme-child-actor',
  'inspect-function',
  'scripted-tool-turn',
  'durable-approval',
  'readme-approval',
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
    if (name === 'readme-file-store') expect(printed).toContain('2 items restored');
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
    const example = 'inspector';
    await import(`../../docs/examples/${example}.ts`);
    expect(printed).toEqual([`Open http://localhost:${port} in a browser to see the loop.`]);
  });
});
