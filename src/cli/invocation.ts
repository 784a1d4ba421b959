/**
 * How to run loopkeeper again, for the hints a command prints: the installed command, or the
 * source entry when running from a checkout through tsx (`npm start`), where no `loopkeeper`
 * is on the PATH.
 */
export function loopkeeperCommand({
  moduleUrl = import.meta.url,
}: {
  moduleUrl?: string;
} = {}): string {
  return moduleUrl.endsWith('.ts') ? 'npx tsx src/cli/main.ts' : 'loopkeeper';
}
