import { CommandError } from './command-error.js';

/** The two modules of `@statelyai/inspect` the relay uses. */
export interface InspectorModules {
  readonly client: typeof import('@statelyai/inspect');
  readonly server: typeof import('@statelyai/inspect/server');
}

/**
 * Loads `@statelyai/inspect`, an optional peer dependency: only `--inspect` and `inspect` need
 * it, so the library and the other commands never load it. Missing, it is a `CommandError` with
 * code `optional_dependency_missing` that says how to install it.
 */
export async function loadInspector({
  importModule = (specifier: string) => import(specifier),
}: {
  /** How a module is imported; tests give one that fails. */
  importModule?: (specifier: string) => Promise<unknown>;
} = {}): Promise<InspectorModules> {
  try {
    const [client, server] = await Promise.all([
      importModule('@statelyai/inspect'),
      importModule('@statelyai/inspect/server'),
    ]);
    return {
      client: client as InspectorModules['client'],
      server: server as InspectorModules['server'],
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new CommandError(
      'The inspector needs the optional package @statelyai/inspect, which is not installed: run "npm install @statelyai/inspect" in your project (or "npm install -g @statelyai/inspect" beside a global loopkeeper)',
      { code: 'optional_dependency_missing', cause: error },
    );
  }
}
