import { ConfigError } from 'loopkeeper';
import { assertValidSessionId, isValidSessionId } from 'loopkeeper/log';
import { describe, expect, it } from 'vitest';

describe('assertValidSessionId', () => {
  it.each([
    'a',
    'session-1',
    'Run_2026.11.29',
    'x'.repeat(128),
    'console',
    'nul-1',
    'com10',
    'lpt0',
    'auxiliary.txt',
  ])('accepts %s', (sessionId) => {
    expect(isValidSessionId(sessionId)).toBe(true);
    expect(() => assertValidSessionId(sessionId)).not.toThrow();
  });

  it.each([
    ['a path that climbs out', '../../etc/passwd'],
    ['an empty id', ''],
    ['10,000 characters', 'x'.repeat(10_000)],
    ['129 characters', 'x'.repeat(129)],
    ['a dot file', '.hidden'],
    ['two dots inside', 'a..b'],
    ['a slash', 'a/b'],
    ['a backslash', 'a\\b'],
    ['a NUL byte', 'a\u0000b'],
    ['a space', 'a b'],
    ['non-ASCII letters', 'sesión'],
    ['a number', 42],
    ['undefined', undefined],
    ['a Windows device name', 'con'],
    ['a Windows device name in capitals', 'NUL'],
    ['a Windows device name with an extension', 'nul.txt'],
    ['a numbered Windows device name', 'COM1'],
    ['a numbered Windows device name with extensions', 'lpt9.tar.gz'],
    ['a Windows device name in mixed case', 'PrN'],
    ['a Windows device name ending in a dot', 'aux.'],
  ])('refuses %s with ConfigError', (_label, sessionId) => {
    expect(isValidSessionId(sessionId)).toBe(false);
    let error: unknown;
    try {
      assertValidSessionId(sessionId);
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_session_id' });
    // The message stays short even for a 10,000-character id.
    expect((error as Error).message.length).toBeLessThan(300);
  });
});
