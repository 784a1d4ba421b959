import { defineTool, ToolError } from 'loopkeeper';
import { describe, expect, it } from 'vitest';

const valid = {
  name: 'read_file',
  description: 'Reads a file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
  execute: ({ path }: { path: string }) => `contents of ${path}`,
};

function definitionError(definition: unknown): ToolError {
  try {
    defineTool(definition as never);
  } catch (error) {
    if (ToolError.isInstance(error)) {
      return error;
    }
    throw error;
  }
  throw new Error('defineTool accepted an invalid definition');
}

describe('defineTool', () => {
  it('returns a frozen definition with a deep-frozen copy of the schema', async () => {
    const parameters = structuredClone(valid.parameters);
    const tool = defineTool({ ...valid, parameters, timeoutMs: 500 });

    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.parameters)).toBe(true);
    const { properties, required } = tool.parameters;
    expect(Object.isFrozen(properties)).toBe(true);
    expect(tool.timeoutMs).toBe(500);
    parameters.required.push('mode');
    expect(required).toEqual(['path']);
    const signal = new AbortController().signal;
    expect(
      await tool.execute({ path: 'a.txt' }, { signal, callId: 'call_1', reportProgress: () => {} }),
    ).toBe('contents of a.txt');
  });

  it('keeps `this` for execute methods that use it', () => {
    const tool = defineTool({
      ...valid,
      prefix: 'seen:',
      execute(this: { prefix: string }, args: { path: string }) {
        return `${this.prefix}${args.path}`;
      },
    } as never);
    const signal = new AbortController().signal;
    expect(
      tool.execute({ path: 'x' } as never, { signal, callId: 'call_1', reportProgress: () => {} }),
    ).toBe('seen:x');
  });

  it.each([
    ['an empty name', { ...valid, name: '' }, /name must be 1 to 64 letters/],
    [
      'a name with a space',
      { ...valid, name: 'read file' },
      /name must be.*\(got string 'read file'\)/,
    ],
    ['a name of 65 characters', { ...valid, name: 'a'.repeat(65) }, /name must be/],
    ['a name with a dot', { ...valid, name: 'fs.read' }, /name must be/],
    [
      'a missing description',
      { ...valid, description: undefined },
      /description must be a string \(got nothing\)/,
    ],
    [
      'no parameters',
      { ...valid, parameters: undefined },
      /parameters must be a JSON Schema object/,
    ],
    [
      'parameters of type array',
      { ...valid, parameters: { type: 'array' } },
      /parameters.type must be 'object'.*\(got string 'array'\)/,
    ],
    [
      'required that is not a list of names',
      { ...valid, parameters: { type: 'object', required: 'path' } },
      /parameters.required must be an array of strings/,
    ],
    [
      'properties that is not an object',
      { ...valid, parameters: { type: 'object', properties: [] } },
      /parameters.properties must be an object \(got an array\)/,
    ],
    ['a zero timeout', { ...valid, timeoutMs: 0 }, /timeoutMs must be a whole number/],
    ['a fractional timeout', { ...valid, timeoutMs: 1.5 }, /timeoutMs must be a whole number/],
    ['a timeout Node cannot honour', { ...valid, timeoutMs: 2 ** 31 }, /timeoutMs must be/],
    ['no execute', { ...valid, execute: 'run' }, /execute must be a function \(got string 'run'\)/],
  ])('refuses %s with a ToolError that says what is wrong', (_label, definition, message) => {
    const error = definitionError(definition);
    expect(error.code).toBe('tool_invalid_definition');
    expect(error.message).toMatch(message);
  });

  it('lists every problem of a definition in one error', () => {
    const error = definitionError({ name: 'bad name', parameters: {}, execute: null });
    expect(error.message).toMatch(/^Tool "bad name" is not a valid tool definition/);
    expect(error.message).toMatch(/name must be/);
    expect(error.message).toMatch(/description must be a string \(got nothing\)/);
    expect(error.message).toMatch(/parameters.type must be 'object'.*\(got nothing\)/);
    expect(error.message).toMatch(/execute must be a function \(got null\)/);
  });

  it('refuses something that is not an object at all', () => {
    expect(definitionError(null).message).toBe('A tool definition must be an object.');
  });

  it('refuses a schema that is not plain JSON data', () => {
    const error = definitionError({
      ...valid,
      parameters: { type: 'object', properties: { path: { type: 'string', check: () => true } } },
    });
    expect(error.message).toMatch(/parameters must be plain JSON data/);
  });

  it('accepts the longest allowed name and hyphens', () => {
    expect(defineTool({ ...valid, name: `a-${'b'.repeat(62)}` }).name).toHaveLength(64);
  });
});
