/**
 * Counts the code that checks the shape of untrusted values (issue 27: "shape-checking code is
 * at most 40% of today's ~1,380 lines"), so the figure can be reproduced: `npx tsx
 * scripts/shape-check-lines.ts`. A line counts when it is neither blank nor only a comment.
 *
 * Two kinds are counted. `hand`: hand-written checks, listed below by file and, where a file
 * also does other work, by its top-level declarations. `schema`: every file under
 * `src/vocabulary/schemas/` (the valibot schemas and the error formatter), which are
 * shape-checking code too, so they count against the same budget. A listed file or declaration
 * that no longer exists counts 0 and is shown as gone. The chat reader's conversion code, which
 * main's whole-file count included, is shown separately and not counted.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Counted {
  readonly file: string;
  /** Top-level declarations to count; the whole file when left out. */
  readonly only?: readonly string[];
}

/** Hand-written shape checks as of issue 27, by file (and declaration where a file mixes concerns). */
const handWritten: readonly Counted[] = [
  { file: 'src/log/new-event-problem.ts' },
  { file: 'src/log/stored-line.ts', only: ['parseStoredLine', 'StoredFields'] },
  { file: 'src/log/store-arguments.ts' },
  { file: 'src/transcript/check-item.ts' },
  { file: 'src/transcript/provider-data.ts' },
  // Gone: its isRecord moved beside describeValue, into the schema folder counted below.
  { file: 'src/transcript/describe-value.ts' },
  {
    file: 'src/tools/validate-arguments.ts',
    only: [
      'findArgumentProblems',
      'findPropertyProblems',
      'JSON_TYPES',
      'matchesType',
      'jsonTypeOf',
      'jsonEqual',
    ],
  },
  { file: 'src/tools/validate-tool-definition.ts' },
  { file: 'src/runtime/run-pause.ts', only: ['checkedDecisions'] },
  { file: 'src/runtime/checked-log-event.ts', only: ['firstMalformed'] },
  { file: 'src/runtime/actors/to-assistant-item.ts', only: ['assertWellFormedResponse'] },
  { file: 'src/compaction/plan/plan.ts', only: ['checkPlanUpdate'] },
  {
    file: 'src/tokens/count-item.ts',
    only: ['assertCountableItem', 'invalidItem', 'readId', 'describe'],
  },
  { file: 'src/restate/parse-input.ts' },
  { file: 'src/compaction/compactor-options.ts' },
  { file: 'src/compaction/helpers/options.ts' },
  // Checks only: the rest of these two files converts a message that already passed
  // ChatMessageSchema into an item (listed below as conversion, shown but not counted).
  { file: 'src/transcript/chat/read-message.ts', only: ['readChatMessage', 'isUnsupported'] },
];

/** Code that sat among the checks on main and now only converts checked values: not counted. */
const conversion: readonly Counted[] = [
  {
    file: 'src/transcript/chat/read-message.ts',
    only: [
      'toItem',
      'shapeOf',
      'partLengths',
      'readContext',
      'readUser',
      'readTool',
      'nullableFields',
      'readAssistant',
    ],
  },
  { file: 'src/transcript/chat/read-content.ts' },
];

const schemaFolder = 'src/vocabulary/schemas';

function isCodeLine(line: string): boolean {
  const trimmed = line.trim();
  return !(
    trimmed === '' ||
    trimmed.startsWith('//') ||
    trimmed.startsWith('/*') ||
    trimmed.startsWith('*')
  );
}

const declarationStart =
  /^(?:export\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|interface|type|class|enum)\s+([A-Za-z_$][\w$]*)/;

/** A file's top-level declarations with their lines (up to the next top-level start). */
function declarations(lines: readonly string[]): Map<string, readonly string[]> {
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of lines) {
    const start = declarationStart.exec(line);
    const topLevelOther =
      line.startsWith('import ') || line.startsWith('/**') || line.startsWith('//');
    if (start?.[1] !== undefined) {
      current = [];
      found.set(start[1], current);
    } else if (topLevelOther) {
      current = undefined;
    }
    current?.push(line);
  }
  return found;
}

function count({ file, only }: Counted): { readonly lines: number; readonly note: string } {
  const path = join(root, file);
  if (!existsSync(path)) return { lines: 0, note: 'gone' };
  const lines = readFileSync(path, 'utf8').split('\n');
  if (only === undefined) return { lines: lines.filter(isCodeLine).length, note: 'whole file' };
  const byName = declarations(lines);
  let total = 0;
  const gone: string[] = [];
  for (const name of only) {
    const body = byName.get(name);
    if (body === undefined) gone.push(name);
    else total += body.filter(isCodeLine).length;
  }
  const note =
    gone.length === 0 ? only.join(', ') : `${only.join(', ')} (gone: ${gone.join(', ')})`;
  return { lines: total, note };
}

function report(title: string, entries: readonly Counted[]): number {
  console.log(`\n${title}`);
  let total = 0;
  for (const entry of entries) {
    const { lines, note } = count(entry);
    total += lines;
    console.log(`${String(lines).padStart(5)}  ${entry.file}  [${note}]`);
  }
  console.log(`${String(total).padStart(5)}  total`);
  return total;
}

const schemaFiles = existsSync(join(root, schemaFolder))
  ? readdirSync(join(root, schemaFolder))
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .map((name) => ({ file: `${schemaFolder}/${name}` }))
  : [];

const hand = report('Hand-written shape checks (code lines)', handWritten);
const schemas = report(`Schemas and their formatter (${schemaFolder})`, schemaFiles);
const converting = report('Conversion of checked chat messages (not counted)', conversion);
console.log(`\nShape-checking code: ${hand + schemas} lines (${hand} by hand + ${schemas} schema)`);
console.log(`Counting the chat reader's conversion too: ${hand + schemas + converting} lines`);
