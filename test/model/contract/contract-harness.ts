import type { ModelAdapter } from 'loopkeeper/model';

/**
 * One scripted model reply in the contract's neutral terms; each harness turns it into its own
 * fake's reply (an HTTP fault of the real API, or a scripted `ModelError`).
 */
export type ContractReply =
  | {
      readonly text: string;
      readonly usage?: {
        readonly promptTokens: number;
        readonly completionTokens: number;
        readonly cachedTokens: number;
      };
      /** Stream slowly: a pause between pieces, so a test can act mid-stream. */
      readonly slowStream?: boolean;
    }
  | {
      readonly toolCalls: readonly {
        readonly id: string;
        readonly name: string;
        readonly arguments: Readonly<Record<string, unknown>>;
      }[];
    }
  | {
      readonly fault:
        | 'overflow'
        | 'payload_too_large'
        | 'server_error'
        | 'unauthorized'
        | 'bad_request'
        | 'hang';
    }
  | { readonly fault: 'rate_limited'; readonly retryAfterSeconds: number };

/** A started fake with the adapter that talks to it. */
export interface ContractFake {
  readonly model: ModelAdapter;
  /** Requests (attempts) the fake has received so far. */
  requests(): number;
  /** Size in bytes of what request `index` sent. */
  requestBytes(index: number): number;
  close(): Promise<void>;
}

/** How the contract suite starts an adapter against its fake. Adding an adapter is one of these. */
export interface ContractHarness {
  readonly name: string;
  /**
   * The adapter retries rate limits and server errors itself, with capped waits (the HTTP
   * adapters); otherwise the first failure reaches the loop as its typed `ModelError`.
   */
  readonly retries: boolean;
  start(options: {
    readonly replies: readonly ContractReply[];
    readonly stream: boolean;
    readonly maxRetries: number;
    readonly maxRetryWaitMs: number;
  }): Promise<ContractFake>;
}
