import { execFile } from 'node:child_process';
import { packageRoot } from '../../cli/support/cli-process.js';

/** What `npm pack --json` says about one tarball. */
export interface PackResult {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

/**
 * Runs `npm pack` on the repository without its lifecycle scripts: the caller builds dist/
 * first (ensureCliBuilt), because `prepare` would delete it under the feet of other test files.
 */
export async function npmPack({
  destination,
  dryRun = false,
}: {
  destination?: string;
  dryRun?: boolean;
}): Promise<PackResult> {
  const args = ['pack', '--json', '--ignore-scripts'];
  if (dryRun) args.push('--dry-run');
  if (destination !== undefined) args.push('--pack-destination', destination);
  const stdout = await runNpm(args, { cwd: packageRoot });
  const [result] = JSON.parse(stdout) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed no result:\n${stdout}`);
  return result;
}

/** Runs npm and resolves with its stdout; a non-zero exit rejects with both streams. */
export function runNpm(args: readonly string[], { cwd }: { cwd: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      [...args],
      { cwd, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else
          reject(new Error(`npm ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
      },
    );
  });
}
