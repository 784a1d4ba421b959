import { describeValue, isRecord } from './describe-value.js';
import { providerDataProblem } from './provider-data.js';
import type { ProtocolProblem } from './types.js';
import { ITEM_KINDS } from './types.js';

/**
 * Structural problems of one value that claims to be an `Item`: wrong type, unknown kind,
 * missing id, fields of the wrong type. Every problem has kind `invalid_item`. Unknown extra
 * fields are allowed so that items written by a newer version still load.
 */
export function checkItem(value: unknown, index: number): ProtocolProblem[] {
  if (!isRecord(value)) {
    return [problem(index, undefined, `item is not an object (got ${describeValue(value)})`)];
  }
  const { id, kind, chatShape } = value;
  const validId = typeof id === 'string' && id !== '' ? id : undefined;
  const problems: string[] = [];
  if (validId === undefined)
    problems.push(`id must be a non-empty string (got ${describeValue(id)})`);
  if (kind === 'user') problems.push(...userProblems(value));
  else if (kind === 'assistant') problems.push(...assistantProblems(value));
  else if (kind === 'toolResult') problems.push(...toolResultProblems(value));
  else if (kind === 'context') problems.push(...contextProblems(value));
  else {
    const expected = ITEM_KINDS.map((name) => `'${name}'`).join(', ');
    problems.push(`unknown kind ${describeValue(kind)} (expected one of ${expected})`);
  }
  if (chatShape !== undefined && !isRecord(chatShape)) {
    problems.push(`chatShape must be an object (got ${describeValue(chatShape)})`);
  }
  return problems.map((message) => problem(index, validId, message));
}

function problem(index: number, id: string | undefined, message: string): ProtocolProblem {
  return id === undefined
    ? { index, kind: 'invalid_item', message }
    : { index, id, kind: 'invalid_item', message };
}

function optionalString(record: Record<string, unknown>, field: string): string[] {
  const value = record[field];
  return value === undefined || typeof value === 'string'
    ? []
    : [`${field} must be a string when present (got ${describeValue(value)})`];
}

function requiredString(
  record: Record<string, unknown>,
  field: string,
  nonEmpty = false,
): string[] {
  const value = record[field];
  if (typeof value !== 'string') return [`${field} must be a string (got ${describeValue(value)})`];
  return nonEmpty && value === '' ? [`${field} must not be empty`] : [];
}

function userProblems(item: Record<string, unknown>): string[] {
  const problems = optionalString(item, 'name');
  const { content } = item;
  if (typeof content === 'string') return problems;
  if (!Array.isArray(content)) {
    const got = describeValue(content);
    return [...problems, `content must be a string or an array of parts (got ${got})`];
  }
  content.forEach((part: unknown, partIndex) => {
    const where = `content[${partIndex}]`;
    if (!isRecord(part)) {
      problems.push(`${where} is not an object (got ${describeValue(part)})`);
      return;
    }
    const { type, text, url, detail } = part;
    if (type === 'text') {
      if (typeof text !== 'string') problems.push(`${where}.text must be a string`);
    } else if (type === 'image') {
      if (typeof url !== 'string') problems.push(`${where}.url must be a string`);
      if (detail !== undefined && detail !== 'auto' && detail !== 'low' && detail !== 'high') {
        problems.push(`${where}.detail must be 'auto', 'low' or 'high'`);
      }
    } else {
      problems.push(
        `${where} has unknown type ${describeValue(type)} (expected 'text' or 'image')`,
      );
    }
  });
  return problems;
}

function assistantProblems(item: Record<string, unknown>): string[] {
  const problems = [...optionalString(item, 'text'), ...optionalString(item, 'name')];
  const { reasoning, toolCalls } = item;
  if (reasoning !== undefined) {
    if (!Array.isArray(reasoning)) {
      problems.push(`reasoning must be an array of {text} parts (got ${describeValue(reasoning)})`);
    } else {
      reasoning.forEach((part: unknown, partIndex) => {
        if (isRecord(part)) {
          const { text, providerData } = part;
          if (typeof text === 'string') {
            if (providerData === undefined) return;
            const problem = providerDataProblem(providerData);
            if (problem !== undefined) problems.push(`reasoning[${partIndex}].${problem}`);
            return;
          }
        }
        problems.push(`reasoning[${partIndex}] must be an object with a string text`);
      });
    }
  }
  if (toolCalls === undefined) return problems;
  if (!Array.isArray(toolCalls)) {
    return [...problems, `toolCalls must be an array (got ${describeValue(toolCalls)})`];
  }
  // Chat providers reject an empty tool_calls array, so an item with no calls leaves the field out.
  if (toolCalls.length === 0) problems.push('toolCalls must be left out when there are no calls');
  toolCalls.forEach((call: unknown, callIndex) => {
    const where = `toolCalls[${callIndex}]`;
    if (!isRecord(call)) {
      problems.push(`${where} is not an object (got ${describeValue(call)})`);
      return;
    }
    for (const message of [
      ...requiredString(call, 'id', true),
      ...requiredString(call, 'name', true),
      ...requiredString(call, 'arguments'),
    ]) {
      problems.push(`${where}.${message}`);
    }
  });
  return problems;
}

function toolResultProblems(item: Record<string, unknown>): string[] {
  const problems = [
    ...requiredString(item, 'callId', true),
    ...requiredString(item, 'toolName'),
    ...requiredString(item, 'content'),
  ];
  const { isError } = item;
  if (typeof isError !== 'boolean') {
    problems.push(`isError must be a boolean (got ${describeValue(isError)})`);
  }
  return problems;
}

function contextProblems(item: Record<string, unknown>): string[] {
  const problems = [...requiredString(item, 'text'), ...optionalString(item, 'name')];
  const { providerData } = item;
  const problem = providerData === undefined ? undefined : providerDataProblem(providerData);
  return problem === undefined ? problems : [...problems, problem];
}
