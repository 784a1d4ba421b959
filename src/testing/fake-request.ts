import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

/**
 * The Chat Completions request body as the fake server received it. Only the fields the server
 * reads are typed; everything else the client sent is kept as is.
 */
export interface FakeChatRequestBody {
  readonly model?: string;
  readonly messages?: readonly ChatCompletionMessageParam[];
  readonly tools?: readonly ChatCompletionTool[];
  readonly tool_choice?: unknown;
  readonly parallel_tool_calls?: boolean;
  readonly temperature?: number;
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly [field: string]: unknown;
}

export interface FakeRequestHeaders {
  readonly authorization?: string;
  readonly 'content-type'?: string;
  readonly [name: string]: string | undefined;
}

/** One request the fake server received, recorded before it was answered. */
export interface FakeRequest<Body = FakeChatRequestBody> {
  /** Position among all requests this server received, from 0. */
  readonly index: number;
  readonly method: string;
  /** The URL path, for example `/v1/chat/completions`. */
  readonly path: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: FakeRequestHeaders;
  /** The parsed JSON body; `undefined` when the body was empty or not JSON. */
  readonly body: Body | undefined;
  readonly rawBody: string;
  /** Whether the client asked for a server-sent-event stream. */
  readonly stream: boolean;
}
