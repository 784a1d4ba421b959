import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Every bare package a bundle of `entry` imports, and every source file it pulls in. `entry` is
 * relative to a test folder one level under test/ (`../../src/index.ts`), as the tests name it.
 */
export async function importsOf(entry: string) {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const inputs = Object.values(result.metafile.inputs);
  return {
    packages: [
      ...new Set(
        inputs.flatMap((input) => input.imports.filter((i) => i.external).map((i) => i.path)),
      ),
    ],
    files: Object.keys(result.metafile.inputs),
  };
}
