import type {
  JSONObject,
  LanguageModelV3FilePart,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { ToolSpec } from '../model/types.js';
import { fencedContextText, isFencedContext } from '../transcript/chat/summary-message.js';
import type {
  AssistantItem,
  ContextItem,
  Item,
  ReasoningPart,
  UserContentPart,
} from '../transcript/types.js';

type AssistantContent = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'];
type ToolContent = Extract<LanguageModelV3Message, { role: 'tool' }>['content'];

/**
 * The AI SDK prompt for a transcript: the instructions as the first system message, then one
 * message per item, with consecutive tool results in one `tool` message. Reasoning goes back
 * with its provider data as `providerOptions`, exactly as it was received, which is how the
 * SDK's providers find a signature or encrypted content to send back.
 *
 * Context items before the conversation starts are system messages; later ones are user
 * messages, because Anthropic, Google and others accept system text only at the start. A
 * compaction summary is always a fenced user message, as in `toChatMessages`.
 */
export function toPrompt({
  instructions,
  transcript,
}: {
  instructions: string | undefined;
  transcript: readonly Item[];
}): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  if (instructions !== undefined && instructions !== '') {
    prompt.push({ role: 'system', content: instructions });
  }
  let conversationStarted = false;
  for (const item of transcript) {
    switch (item.kind) {
      case 'context':
        prompt.push(contextMessage(item, conversationStarted));
        break;
      case 'user':
        conversationStarted = true;
        prompt.push({ role: 'user', content: userContent(item.content) });
        break;
      case 'assistant':
        conversationStarted = true;
        prompt.push({ role: 'assistant', content: assistantContent(item) });
        break;
      case 'toolResult': {
        conversationStarted = true;
        const part: ToolContent[number] = {
          type: 'tool-result',
          toolCallId: item.callId,
          toolName: item.toolName,
          output: item.isError
            ? { type: 'error-text', value: item.content }
            : { type: 'text', value: item.content },
        };
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}

/** Tool specs as the SDK's function tools: the JSON Schema passes through as is. */
export function toFunctionTools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
  }));
}

function contextMessage(item: ContextItem, conversationStarted: boolean): LanguageModelV3Message {
  if (isFencedContext(item)) {
    return { role: 'user', content: [{ type: 'text', text: fencedContextText(item) }] };
  }
  if (!conversationStarted) return { role: 'system', content: item.text };
  return { role: 'user', content: [{ type: 'text', text: item.text }] };
}

function userContent(
  content: string | readonly UserContentPart[],
): (LanguageModelV3TextPart | LanguageModelV3FilePart)[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : image(part),
  );
}

/** An image part as a file part: a data URL becomes its base64 data, anything else a URL. */
function image(part: Extract<UserContentPart, { type: 'image' }>): LanguageModelV3FilePart {
  const detail: SharedV3ProviderOptions | undefined =
    part.detail === undefined ? undefined : { openai: { imageDetail: part.detail } };
  const dataUrl = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(part.url);
  return {
    type: 'file',
    mediaType: dataUrl?.[1] ?? 'image/*',
    data: dataUrl?.[2] ?? new URL(part.url),
    ...(detail === undefined ? {} : { providerOptions: detail }),
  };
}

function assistantContent(item: AssistantItem): AssistantContent {
  const content: AssistantContent = [];
  for (const part of item.reasoning ?? []) content.push(reasoningPart(part));
  if (item.text !== undefined && item.text !== '') content.push({ type: 'text', text: item.text });
  for (const call of item.toolCalls ?? []) {
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: toolInput(call.arguments),
    });
  }
  return content;
}

function reasoningPart(part: ReasoningPart): AssistantContent[number] {
  // The SDK's option type is mutable; the data goes out as it came in and is not changed.
  const providerOptions = part.providerData as SharedV3ProviderOptions | undefined;
  return {
    type: 'reasoning',
    text: part.text,
    ...(providerOptions === undefined ? {} : { providerOptions }),
  };
}

/**
 * The call's arguments as the JSON object providers send back. Arguments that are not a JSON
 * object (the model produced broken JSON; the loop answered the call with an error) go back as
 * `{}`: Anthropic and others refuse anything but an object, which would fail every later request.
 * The log keeps the raw text.
 */
function toolInput(raw: string): JSONObject {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as JSONObject;
    }
  } catch {
    // Not JSON: fall through.
  }
  return {};
}
