import {
  ConfigError,
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  createTokenCounter,
  defineTool,
  openAIChatModel,
  ToolError,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import { type CatalogEntry, expectRefused } from './catalog-entry.js';

const model = new ScriptedModel();
const trigger = tokenBudgetTrigger({ maxTokens: 10_000 });
const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  parameters: { type: 'object' },
  execute: () => 'echo',
});

export const optionInputs: readonly CatalogEntry[] = [
  {
    area: 'options',
    input: 'negative token budget: tokenBudgetTrigger({maxTokens: -1})',
    check: () => expectRefused(() => tokenBudgetTrigger({ maxTokens: -1 }), ConfigError, 'config'),
  },
  {
    area: 'options',
    input: 'negative emergency budget: createCompactor({emergency: {maxTokens: -1}})',
    check: () =>
      expectRefused(
        () => createCompactor({ trigger, emergency: { maxTokens: -1 } }),
        ConfigError,
        'config',
      ),
  },
  {
    area: 'options',
    input:
      'window smaller than the output reserve: contextWindowTrigger({window: 4096, outputReserve: 8192})',
    check: () =>
      expectRefused(
        () => contextWindowTrigger({ window: 4_096, outputReserve: 8_192 }),
        ConfigError,
        'config',
      ),
  },
  {
    area: 'options',
    input: 'percent written as a ratio: contextWindowTrigger({window: 128000, percent: 0.8})',
    check: () =>
      expectRefused(
        () => contextWindowTrigger({ window: 128_000, percent: 0.8 }),
        ConfigError,
        'config',
      ),
  },
  {
    area: 'options',
    input: 'maxConsecutiveCompactions: -1',
    check: () =>
      expectRefused(
        () => createAgentLoop({ model, maxConsecutiveCompactions: -1 }),
        ConfigError,
        'config',
      ),
  },
  {
    area: 'options',
    input: 'maxStepsPerRun: 0',
    check: () =>
      expectRefused(() => createAgentLoop({ model, maxStepsPerRun: 0 }), ConfigError, 'config'),
  },
  {
    area: 'options',
    input: 'a tool whose execute is not a function',
    check: () =>
      expectRefused(
        () =>
          createAgentLoop({
            model,
            tools: [
              {
                name: 'broken',
                description: 'x',
                parameters: { type: 'object' },
                execute: 'rm -rf /',
              } as never,
            ],
          }),
        ToolError,
        'tool_invalid_definition',
        { quote: true },
      ),
  },
  {
    area: 'options',
    input: 'a schema-less tool (no parameters)',
    check: () =>
      expectRefused(
        () => defineTool({ name: 'schemaless', description: 'x', execute: () => 1 } as never),
        ToolError,
        'tool_invalid_definition',
        { quote: true },
      ),
  },
  {
    area: 'options',
    input: 'two tools with the same name',
    check: () =>
      expectRefused(
        () => createAgentLoop({ model, tools: [echo, echo] }),
        ConfigError,
        'config_duplicate_tool_name',
      ),
  },
  {
    area: 'options',
    input: 'a model without generate()',
    check: () =>
      expectRefused(
        () => createAgentLoop({ model: { name: 'fake' } as never }),
        ConfigError,
        'config',
      ),
  },
  {
    area: 'options',
    input: 'openAIChatModel({timeout: 0})',
    check: () =>
      expectRefused(
        () => openAIChatModel({ model: 'gpt-test', apiKey: 'k', timeout: 0 }),
        ConfigError,
        'config',
      ),
  },
  {
    area: 'options',
    input: "an unknown token encoding ('p50k')",
    check: () =>
      expectRefused(
        () => createTokenCounter({ encoding: 'p50k' as never }),
        ConfigError,
        'unknown_encoding',
      ),
  },
  {
    area: 'options',
    input: 'toolTimeoutMs: -5',
    check: () =>
      expectRefused(
        () => createAgentLoop({ model, toolTimeoutMs: -5 }),
        ConfigError,
        'config_invalid_timeout',
      ),
  },
  {
    area: 'options',
    input: "toolTimeoutMs: 3e9 (past Node's 2^31 - 1 ms timer limit)",
    check: () =>
      expectRefused(
        () => createAgentLoop({ model, toolTimeoutMs: 3e9 }),
        ConfigError,
        'config_invalid_timeout',
      ),
  },
  {
    area: 'options',
    input: 'createCompactor without a trigger',
    check: () =>
      expectRefused(() => createCompactor({} as never), ConfigError, 'config', { quote: true }),
  },
  {
    area: 'options',
    input: 'createCompactor with a backend that has no summarize()',
    check: () =>
      expectRefused(
        () => createCompactor({ trigger, backend: { name: 'x', maxInputTokens: 10 } as never }),
        ConfigError,
        'config',
        { quote: true },
      ),
  },
];
