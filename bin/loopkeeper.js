#!/usr/bin/env node
// The published command: runs the compiled CLI. In a source checkout `npm ci` builds it (the
// `prepare` script); after `npm ci --ignore-scripts`, run `npm run build` or use the sources
// directly with `npx tsx src/cli/main.ts`.
let cli;
try {
  cli = await import('../dist/src/cli/main.js');
} catch (error) {
  if (
    error?.code === 'ERR_MODULE_NOT_FOUND' &&
    String(error.message).includes('dist/src/cli/main.js')
  ) {
    process.stderr.write(
      'loopkeeper: error: the CLI is not built. Run "npm run build" in the package directory, or "npx tsx src/cli/main.ts".\n',
    );
    process.exit(1);
  }
  throw error;
}
await cli.main(process.argv.slice(2));
