import {
  type AgentLoopActor,
  createTokenCounter,
  type SessionEvent,
  type SessionStore,
  type TelemetryEvent,
} from 'loopkeeper';
import {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach } from 'vitest';

let counter: Promise<TokenCounter> | undefined;

/** One o200k counter per test file: loading the encoding is the slow part. */
export function sharedTokenCounter(): Promise<TokenCounter> {
  counter ??= createTokenCounter({ encoding: 'o200k_base' });
  return counter;
}

/**
 * Starts fake OpenAI servers for the tests of the calling file and closes each one after its
 * test, so a failing assertion cannot leave a server listening.
 */
export function fakeServerPerTest(): (
  options: FakeOpenAIServerOptions,
) => Promise<FakeOpenAIServer> {
  const open: FakeOpenAIServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async (options) => {
    const server = await startFakeOpenAIServer(options);
    open.push(server);
    return server;
  };
}

/** Records every telemetry event a loop emits, in order. */
export function recordTelemetry(loop: AgentLoopActor): TelemetryEvent[] {
  const events: TelemetryEvent[] = [];
  loop.on('*', (event) => {
    events.push(event);
  });
  return events;
}

/** Resolves once the loop is idle (after the current run, if any, has finished). */
export function whenIdle(loop: AgentLoopActor): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      const snapshot = loop.getSnapshot();
      if (snapshot.matches('idle') && snapshot.context.queue.length === 0) {
        subscription.unsubscribe();
        resolve();
      }
    };
    const subscription = loop.subscribe(check);
    check();
  });
}

/** Resolves when the loop emits an event of the given type. */
export function nextEvent<Type extends TelemetryEvent['type']>(
  loop: AgentLoopActor,
  type: Type,
): Promise<Extract<TelemetryEvent, { type: Type }>> {
  return new Promise((resolve) => {
    const subscription = loop.on(type, (event) => {
      subscription.unsubscribe();
      resolve(event as Extract<TelemetryEvent, { type: Type }>);
    });
  });
}

/** Every event of a session, in order, as the store returns them. */
export async function readSession(store: SessionStore, sessionId: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of store.read(sessionId)) events.push(event);
  return events;
}
