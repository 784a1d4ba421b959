import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUrls, looksLikeError } from '../../src/compaction/summarizers/extract-patterns.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

// The error-line patterns as first written, with the module-name prefix on the second one.
const writtenPatterns: readonly RegExp[] = [
  /^\s*(?:error|errors|fatal|panic|exception|failed|failure)\b/i,
  /\b[\w.]*(?:error|exception|failure)s?\b\s*:/i,
  /^\s*Traceback \(most recent call last\)/,
  /\b(?:command not found|No such file or directory|Permission denied|Segmentation fault|not found|denied|invalid|cannot|unable to|failed|failure|syntax error)\b/i,
  /\bexit(?:ed)? (?:code|status|with code)\s*[1-9]\d*/i,
  /\b[EFW]\d{3}\b/,
];
const asWritten = (line: string) => writtenPatterns.some((pattern) => pattern.test(line));

const pieces = [
  'error',
  'Error',
  'ERRORS',
  'exception',
  'Exception',
  'failure',
  'Failures',
  's',
  'x',
  'Value',
  'sqlite3',
  '.',
  '..',
  '_',
  '-',
  ':',
  ' :',
  ' ',
  '\t',
  '1',
  'é',
  '/',
  '"',
  'client',
  'err',
  'or',
  // A word of each of the other patterns, so every one of them is tried.
  'Traceback (most recent call last)',
  'exit code 1',
  'exited with status 2',
  'E501',
  'w123',
  'F40',
  'fatal',
  'PANIC',
  'FAILED',
  'not found',
  'command not found',
  'No such file or directory',
  'Permission denied',
  'Segmentation fault',
  'invalid',
  'cannot',
  'unable to',
  'syntax error',
];

describe('looksLikeError', () => {
  it('property: answers as the patterns first written do, without their module-name prefix', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const line = parts.join('');
        expect(looksLikeError(line)).toBe(asWritten(line));
      }),
      { numRuns: 3_000 },
    );
  });

  it('answers as the patterns first written do on every line of the bundled transcripts', () => {
    const lines = loadTranscriptFixtures().flatMap((fixture) =>
      fixture.messages.flatMap((message) =>
        typeof message.content === 'string' ? message.content.split('\n') : [],
      ),
    );
    expect(lines.length).toBeGreaterThan(1_000);
    const differing = lines.filter((line) => looksLikeError(line) !== asWritten(line));
    expect(differing).toEqual([]);
    expect(lines.some(asWritten)).toBe(true);
  });
});

describe('findUrls', () => {
  it('leaves the sentence punctuation after a URL out of it', () => {
    const text =
      'Log in at http://web.chal.example:8080/login, then see https://owncloud.org. ' +
      'Docs: https://example.com/a?b=1&c=2; (also https://example.com/x/)! Really? https://e.org/?';
    expect(findUrls(text)).toEqual([
      'http://web.chal.example:8080/login',
      'https://owncloud.org',
      'https://example.com/a?b=1&c=2',
      'https://example.com/x/',
      'https://e.org/',
    ]);
  });

  it('keeps a URL that ends in a path, query or fragment whole', () => {
    expect(findUrls('GET https://a.example/v1/items?id=7#top done')).toEqual([
      'https://a.example/v1/items?id=7#top',
    ]);
  });
});
