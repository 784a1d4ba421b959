import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { markdownTable } from './markdown.js';
import { formatBytes } from './stats.js';

const benchDirectory = fileURLToPath(new URL('..', import.meta.url));

/** The peer libraries, with why this version was chosen. */
export const PEERS = [
  {
    name: 'ai',
    api: '`pruneMessages`',
    why: 'latest 6.x: ai 7 declares Node >= 22',
  },
  {
    name: '@mariozechner/pi-coding-agent',
    api: '`prepareCompaction`, `estimateContextTokens`, `shouldCompact` (module file; not exported from the package root)',
    why: 'latest; declares Node >= 20.6',
  },
  {
    name: '@mastra/core',
    api: '(peer of @mastra/memory)',
    why: 'latest 0.x: 1.x declares Node >= 22.13; its `TokenLimiterProcessor` limits output only in 0.x',
  },
  {
    name: '@mastra/memory',
    api: '`TokenLimiter` (memory processor that trims history to a token limit)',
    why: 'latest 0.x, pairs with @mastra/core 0.24',
  },
  {
    name: '@langchain/core',
    api: '`trimMessages`',
    why: 'latest; declares Node >= 20',
  },
  {
    name: 'js-tiktoken',
    api: '`getEncoding("o200k_base")`',
    why: 'latest',
  },
] as const;

function installedVersion(name: string): string {
  try {
    const manifest = JSON.parse(
      readFileSync(`${benchDirectory}node_modules/${name}/package.json`, 'utf8'),
    ) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

export interface Environment {
  readonly machine: string;
  readonly versions: Readonly<Record<string, string>>;
  readonly markdown: string;
}

export function describeEnvironment({ quick }: { readonly quick: boolean }): Environment {
  const processors = cpus();
  const machine = `${processors[0]?.model ?? 'unknown CPU'}, ${processors.length} cores, ${formatBytes(totalmem())} memory`;
  const versions = Object.fromEntries(
    PEERS.map((peer) => [peer.name, installedVersion(peer.name)]),
  );
  const loopkeeper = JSON.parse(readFileSync(`${benchDirectory}../package.json`, 'utf8')) as {
    version: string;
  };
  const machineTable = markdownTable({
    header: ['', ''],
    rows: [
      ['machine', machine],
      ['Node', process.version],
      ['date', new Date().toISOString()],
      ['run', quick ? '`--quick`' : 'full'],
      ['loopkeeper', `${loopkeeper.version} (this repository's source, through tsx)`],
    ],
  });
  const peerTable = markdownTable({
    header: ['package', 'version', 'used', 'why this version'],
    rows: PEERS.map((peer) => [
      `\`${peer.name}\``,
      versions[peer.name] ?? 'unknown',
      peer.api,
      peer.why,
    ]),
  });
  return { machine, versions, markdown: `${machineTable}\n\n${peerTable}` };
}
