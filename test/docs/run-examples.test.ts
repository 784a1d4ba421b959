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
];

afterEach(() => {
  vi.restoreAllMocks();
});

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
    if (name === 'readme-strategies') expect(printed.at(-1)).toMatch(/^\d+ -> \d+ $/);
  });
});
