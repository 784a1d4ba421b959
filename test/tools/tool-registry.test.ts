import { ConfigError, defineTool, ToolError } from 'loopkeeper';
import { createToolRegistry, toolSpecs } from 'loopkeeper/tools';
import { describe, expect, it } from 'vitest';

const search = defineTool({
  name: 'search',
  description: 'Searches the web.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  execute: () => 'results',
});
const clock = defineTool({
  name: 'clock',
  description: 'Tells the time.',
  parameters: { type: 'object', properties: {} },
  execute: () => '12:00',
});

describe('createToolRegistry', () => {
  it('indexes tools by name in definition order', () => {
    const registry = createToolRegistry([search, clock]);
    expect(registry.names).toEqual(['search', 'clock']);
    expect(registry.get('clock')).toBe(clock);
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.get('constructor')).toBeUndefined();
  });

  it('refuses two tools with the same name with a ConfigError', () => {
    const again = defineTool({ ...clock, description: 'Another clock.' });
    expect(() => createToolRegistry([clock, search, again])).toThrowError(ConfigError);
    expect(() => createToolRegistry([clock, again])).toThrowError(/Two tools are named "clock"/);
  });

  it('validates tools that did not go through defineTool', () => {
    const raw = { ...clock, name: 'has space' };
    expect(() => createToolRegistry([raw])).toThrowError(ToolError);
  });
});

describe('toolSpecs', () => {
  it('describes each tool to the model with name, description and parameters only', () => {
    expect(toolSpecs([search, clock])).toEqual([
      {
        name: 'search',
        description: 'Searches the web.',
        parameters: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
      {
        name: 'clock',
        description: 'Tells the time.',
        parameters: { type: 'object', properties: {} },
      },
    ]);
  });

  it('refuses duplicate names, which a provider would reject', () => {
    expect(() => toolSpecs([search, search])).toThrowError(ConfigError);
  });
});
