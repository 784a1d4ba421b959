import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../scripts/api-reference.js';

const page = readFileSync(join(repositoryRoot, 'docs', 'getting-started.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  peerDependencies: Record<string, string>;
};

// What a newcomer needs before the first example runs, said on the page itself.
describe('docs/getting-started.md', () => {
  it('names the Node versions of package.json "engines"', () => {
    expect(page).toContain(manifest.engines.node);
  });

  it('says the package is ESM only, how to set "type": "module", and that it uses top-level await', () => {
    expect(page).toMatch(/ESM only/);
    expect(page).toContain('"type": "module"');
    expect(page).toContain('npm pkg set type=module');
    expect(page).toMatch(/top-level `await`/);
  });

  it('says to install openai, the peer dependency, beside loopkeeper', () => {
    expect(Object.keys(manifest.peerDependencies)).toContain('openai');
    expect(page).toMatch(/npm install \S*loopkeeper\S* openai@/);
  });

  it('starts with the offline example the tests run', () => {
    const first = page.indexOf('<!-- example: ');
    expect(page.slice(first)).toMatch(/^<!-- example: docs\/examples\/getting-started\.ts -->/);
  });
});
