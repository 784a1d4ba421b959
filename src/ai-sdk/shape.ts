import type { Item } from '../transcript/types.js';

export { fingerprint } from '../integrations/fingerprint.js';

/** A JSON value as the AI SDK's `providerOptions` and tool inputs hold them. */
export type JsonValue =
  | null
  | string
  | number
  | boolean
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** The AI SDK's per-provider options: provider name → its JSON settings. */
export type ProviderOptionsJson = Readonly<Record<string, Readonly<Record<string, JsonValue>>>>;

/**
 * One part of the original message as an item cannot say it. Parts whose model-visible text
 * the item holds keep only what is left (provider options, lengths); every other part (files,
 * provider-executed tool calls and results, approval requests) is kept whole, binary data as
 * base64 (see `EncodedData`).
 */
export type PartTemplate =
  | {
      readonly type: 'text';
      readonly length: number;
      readonly providerOptions?: ProviderOptionsJson;
    }
  /** Its provider options travel as the reasoning part's own `providerData`. */
  | { readonly type: 'reasoning' }
  | {
      readonly type: 'tool-call';
      readonly providerOptions?: ProviderOptionsJson;
      /** The input was a string (a model's unparsed output), held verbatim as the arguments. */
      readonly rawInput?: true;
    }
  | {
      readonly type: 'image';
      readonly data: DataSpelling;
      readonly mediaType?: string;
      readonly providerOptions?: ProviderOptionsJson;
    }
  | {
      readonly type: 'tool-result';
      readonly output: OutputTemplate;
      readonly providerOptions?: ProviderOptionsJson;
    }
  | { readonly type: 'opaque'; readonly part: JsonValue };

/** How binary or URL data was spelled, so it comes back as the same JavaScript type. */
export type DataSpelling = 'string' | 'base64' | 'url' | 'bytes' | 'buffer' | 'arraybuffer';

/** A tool result's `output` without the text the item's `content` holds. */
export type OutputTemplate =
  | {
      readonly type: 'text' | 'error-text' | 'json' | 'error-json';
      readonly providerOptions?: ProviderOptionsJson;
    }
  | {
      readonly type: 'execution-denied';
      readonly reason: boolean;
      readonly providerOptions?: ProviderOptionsJson;
    }
  | {
      readonly type: 'content';
      /** Text entries as their length (their texts, joined by newlines, are the content); others whole. */
      readonly value: readonly (
        | {
            readonly type: 'text';
            readonly length: number;
            readonly providerOptions?: ProviderOptionsJson;
          }
        | { readonly type: 'opaque'; readonly entry: JsonValue }
      )[];
      readonly providerOptions?: ProviderOptionsJson;
    };

/**
 * How an item was spelled as an AI SDK `ModelMessage`, where the item alone cannot say it (the
 * AI SDK counterpart of `chatShape`). `check` fingerprints the model-visible fields it was made
 * for: a strategy that changes them (a pruned output, dropped reasoning) leaves a stale shape,
 * and the changed part is then rendered plainly from the item while the rest keeps its shape.
 * JSON-safe, so it survives the session log.
 */
export interface AiSdkShape {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly providerOptions?: ProviderOptionsJson;
  /** The message content was a plain string. */
  readonly stringContent?: true;
  /** The parts in their original order (for a tool result: its own part and the parts that travel with it). */
  readonly parts?: readonly PartTemplate[];
  /** A tool result that shared the previous result's tool message. */
  readonly joinPrevious?: true;
  /** Fingerprints of the model-visible fields, by component. */
  readonly check: Readonly<Record<string, string>>;
}

/** An item converted from the AI SDK, carrying its shape. */
export type ShapedItem = Item & { readonly aiSdkShape?: AiSdkShape };

/** The shape an item carries, if any. */
export function shapeOf(item: Item): AiSdkShape | undefined {
  const shape = (item as ShapedItem).aiSdkShape;
  return shape !== null && typeof shape === 'object' ? shape : undefined;
}
