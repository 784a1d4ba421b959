import { describe, expect, it } from 'vitest';
import { CommandError } from '../../src/cli/command-error.js';
import { loadInspector } from '../../src/cli/load-inspector.js';

describe('loadInspector (@statelyai/inspect, an optional peer)', () => {
  it('loads both modules of the installed package', async () => {
    const { client, server } = await loadInspector();
    expect(typeof client.createWebSocketInspector).toBe('function');
    expect(typeof server.createInspectorServer).toBe('function');
  });

  it('says how to install it when it is missing, as a CommandError with its own code', async () => {
    const missing = Object.assign(new Error("Cannot find package '@statelyai/inspect'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const error = await loadInspector({ importModule: () => Promise.reject(missing) }).catch(
      (caught: unknown) => caught,
    );
    expect(CommandError.isInstance(error)).toBe(true);
    expect((error as CommandError).code).toBe('optional_dependency_missing');
    expect((error as CommandError).message).toContain('npm install @statelyai/inspect');
    expect((error as CommandError).cause).toBe(missing);
  });

  it('passes on any other failure as it is', async () => {
    const broken = new TypeError('broken module');
    await expect(loadInspector({ importModule: () => Promise.reject(broken) })).rejects.toBe(
      broken,
    );
  });
});
