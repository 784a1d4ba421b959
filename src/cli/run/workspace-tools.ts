import { mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { defineTool } from '../../tools/define-tool.js';
import type { AnyToolDefinition } from '../../tools/types.js';
import { sliceText } from '../../transcript/code-points.js';
import { writeFileAtomic } from '../output/write-file-atomic.js';
import { walkEntries } from './walk-files.js';
import { displayPath, resolveInWorkspace, resolveWritableInWorkspace } from './workspace-path.js';

/** Output caps: a tool result has to fit a context window next to everything else. */
export interface WorkspaceLimits {
  readonly maxListedEntries: number;
  readonly maxReadCharacters: number;
  readonly maxMatches: number;
  /** Files larger than this are not searched (they are rarely text a person wrote). */
  readonly maxSearchedFileBytes: number;
  readonly maxLineLength: number;
}

export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = {
  maxListedEntries: 300,
  maxReadCharacters: 20_000,
  maxMatches: 100,
  maxSearchedFileBytes: 1_000_000,
  maxLineLength: 240,
};

/**
 * Tools confined to one directory: list files, read a file, search text, and write a file.
 * Every path is resolved (symlinks included) and refused when it leaves the directory; every
 * output is capped and says when it was cut, so the model knows to ask for less. `write_file`
 * is the one tool that changes anything, so it needs approval (`needsApproval: true`): the
 * run pauses until a person (or `--approve`) decides each call.
 */
export function createWorkspaceTools({
  root,
  limits = DEFAULT_WORKSPACE_LIMITS,
}: {
  root: string;
  limits?: WorkspaceLimits;
}): AnyToolDefinition[] {
  const listFiles = defineTool<{ path?: string; recursive?: boolean }>({
    name: 'list_files',
    description:
      'List files and directories (directories end with "/") under a path of the working directory.',
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'Directory relative to the working directory; default "."',
        },
        recursive: {
          type: 'boolean',
          description: 'Include subdirectories (skips .git, node_modules, dist)',
        },
      },
    },
    async execute({ path = '.', recursive = false }) {
      const directory = await resolveInWorkspace({ root, path });
      const lines: string[] = [];
      for await (const entry of walkEntries({ directory, recursive })) {
        if (lines.length === limits.maxListedEntries) {
          lines.push(
            `[listing cut at ${limits.maxListedEntries} entries; list a subdirectory for more]`,
          );
          break;
        }
        lines.push(`${displayPath(root, entry.path)}${entry.isDirectory ? '/' : ''}`);
      }
      return lines.length === 0 ? '(empty directory)' : lines.join('\n');
    },
  });

  const readFile = defineTool<{ path: string; start_line?: number }>({
    name: 'read_file',
    description: `Read a text file of the working directory, with line numbers. Output is capped at ${limits.maxReadCharacters} characters; use start_line to read further.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the working directory' },
        start_line: { type: 'integer', description: 'First line to show (1-based); default 1' },
      },
      required: ['path'],
    },
    async execute({ path, start_line: startLine = 1 }) {
      const file = await resolveInWorkspace({ root, path });
      const text = await readTextFile(file);
      const lines = text.split('\n');
      // A final newline ends the last line; it does not start another.
      if (lines.length > 1 && lines.at(-1) === '') lines.pop();
      const first = Math.max(1, Math.floor(startLine));
      const shown: string[] = [];
      let characters = 0;
      let line = first;
      for (; line <= lines.length; line += 1) {
        const numbered = `${line}: ${lines[line - 1] ?? ''}`;
        if (characters + numbered.length > limits.maxReadCharacters && shown.length > 0) break;
        shown.push(numbered);
        characters += numbered.length + 1;
      }
      if (line <= lines.length) {
        shown.push(
          `[cut at line ${line - 1} of ${lines.length}; call read_file with start_line ${line} for more]`,
        );
      }
      return shown.length === 0
        ? `(no line ${first}: the file has ${lines.length} lines)`
        : shown.join('\n');
    },
  });

  const searchText = defineTool<{ pattern: string; path?: string }>({
    name: 'search_text',
    description:
      'Search text files of the working directory for a literal string (case-sensitive); returns path:line: text for each match.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'The text to find' },
        path: { type: 'string', description: 'Directory or file to search; default "."' },
      },
      required: ['pattern'],
    },
    async execute({ pattern, path = '.' }) {
      if (pattern === '') throw new Error('pattern must not be empty');
      const start = await resolveInWorkspace({ root, path });
      const files = (await stat(start)).isDirectory()
        ? walkEntries({ directory: start, recursive: true })
        : singleFile(start);
      const matches: string[] = [];
      for await (const entry of files) {
        if (entry.isDirectory) continue;
        const text = await readTextFile(entry.path, limits.maxSearchedFileBytes).catch(
          () => undefined,
        );
        if (text === undefined) continue;
        const lines = text.split('\n');
        for (let index = 0; index < lines.length; index += 1) {
          const content = lines[index] ?? '';
          if (!content.includes(pattern)) continue;
          if (matches.length === limits.maxMatches) {
            matches.push(`[stopped at ${limits.maxMatches} matches; search a narrower path]`);
            return matches.join('\n');
          }
          const shown =
            content.length > limits.maxLineLength
              ? `${sliceText(content, 0, limits.maxLineLength)}…`
              : content;
          matches.push(`${displayPath(root, entry.path)}:${index + 1}: ${shown.trim()}`);
        }
      }
      return matches.length === 0 ? `No matches for "${pattern}".` : matches.join('\n');
    },
  });

  const writeFile = defineTool<{ path: string; content: string }>({
    name: 'write_file',
    description:
      "Create or replace a text file of the working directory with the given content (missing directories are created). Each call needs the user's approval and may be denied; the result says so.",
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the working directory' },
        content: { type: 'string', description: 'The whole new content of the file' },
      },
      required: ['path', 'content'],
    },
    needsApproval: true,
    async execute({ path, content }) {
      if (typeof content !== 'string') throw new Error('content must be a string');
      const file = await resolveWritableInWorkspace({ root, path });
      const existing = await stat(file).then(
        (info) => info,
        () => undefined,
      );
      if (existing?.isDirectory() === true) throw new Error(`"${path}" is a directory`);
      await mkdir(dirname(file), { recursive: true });
      await writeFileAtomic({ path: file, text: content });
      return `${existing === undefined ? 'Created' : 'Replaced'} ${displayPath(root, file)} (${content.length} characters).`;
    },
  });

  return [listFiles, readFile, searchText, writeFile];
}

async function* singleFile(path: string) {
  yield { path, isDirectory: false };
}

/** A file's text; refuses binary files and reads at most `maxBytes` of larger ones. */
async function readTextFile(path: string, maxBytes = 2_000_000): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new Error(`file is too large to read (${size} bytes)`);
    const buffer = Buffer.alloc(size);
    await handle.read(buffer, 0, size, 0);
    if (buffer.includes(0)) throw new Error('file looks binary (it contains NUL bytes)');
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
