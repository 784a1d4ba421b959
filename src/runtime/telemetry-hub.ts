import { EventEmitter } from 'eventemitter3';
import { ConfigError } from '../errors/config-error.js';
import type { TelemetryEvent, TelemetryEventType } from '../events/telemetry-events.js';

/** The event a listener for `Type` receives; `'*'` receives every event. */
export type TelemetryEventOf<Type extends TelemetryEventType | '*'> = Type extends '*'
  ? TelemetryEvent
  : Extract<TelemetryEvent, { type: Type }>;

export type TelemetryListener<Type extends TelemetryEventType | '*' = '*'> = (
  event: TelemetryEventOf<Type>,
) => void;

/** What a guarded listener threw, and the event it was handling. */
export interface ListenerErrorInfo<Event = TelemetryEvent> {
  readonly error: unknown;
  readonly event: Event;
}

/** Anything that emits telemetry the XState way: an agent loop actor, or any XState v5 actor. */
export interface TelemetrySource {
  on(type: '*', listener: (event: TelemetryEvent) => void): { unsubscribe(): void };
}

export interface TelemetryHubOptions {
  /** Called each time a hub listener throws. By default the first throw of each listener is logged with `console.error`. */
  readonly onListenerError?: (info: ListenerErrorInfo) => void;
}

export interface TelemetryHub {
  /** Forwards every event the source emits to the hub's listeners. Attaching twice is a no-op. Returns the detach function. */
  attach(source: TelemetrySource): () => void;
  /** Listens for one event type, or `'*'` for all. Type listeners run before `'*'` listeners. Returns a function that removes it. */
  on<Type extends TelemetryEventType | '*'>(
    type: Type,
    listener: TelemetryListener<Type>,
  ): () => void;
  /** Like `on`, removed after the first matching event. */
  once<Type extends TelemetryEventType | '*'>(
    type: Type,
    listener: TelemetryListener<Type>,
  ): () => void;
  /** Removes every registration of `listener` for `type`. */
  off<Type extends TelemetryEventType | '*'>(type: Type, listener: TelemetryListener<Type>): void;
  /** Detaches from every attached source; listeners stay registered. */
  detachAll(): void;
}

/**
 * Wraps a listener so nothing it throws (or rejects with, for async listeners) escapes. XState
 * rethrows what an `actor.on` listener throws as an uncaught error, which would take down a
 * host process for a telemetry bug; telemetry observes and must never steer. `onError` gets
 * each failure; by default only the first one is logged, so a broken listener cannot flood logs.
 *
 * @example
 * ```ts
 * import { safeListener } from 'loopkeeper/runtime';
 * import { createAgentLoop } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * // A listener that throws is reported, not allowed to break the loop.
 * loop.on(
 *   'RunFinished',
 *   safeListener(
 *     (event) => JSON.parse(String(event.outcome)),
 *     ({ error }) => console.error(error),
 *   ),
 * );
 * ```
 */
export function safeListener<Event>(
  listener: (event: Event) => void,
  onError?: (info: ListenerErrorInfo<Event>) => void,
): (event: Event) => void {
  let reported = false;
  const report = (info: ListenerErrorInfo<Event>): void => {
    try {
      if (onError !== undefined) {
        onError(info);
      } else if (!reported) {
        reported = true;
        console.error(
          'loopkeeper: a telemetry listener threw; later errors from this listener are not logged.',
          info.error,
        );
      }
    } catch {
      // The error reporter failed too; there is nowhere safe left to send this.
    }
  };
  return (event) => {
    try {
      const result: unknown = listener(event);
      if (isThenable(result)) {
        result.then(undefined, (error: unknown) => report({ error, event }));
      }
    } catch (error) {
      report({ error, event });
    }
  };
}

/**
 * Collects the telemetry of any number of actors for one set of listeners. Listeners are
 * isolated: one that throws never stops the others, nor the actor that emitted the event.
 *
 * @example
 * ```ts
 * import { createAgentLoop, createTelemetryHub } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const hub = createTelemetryHub({ onListenerError: ({ error }) => console.error(error) });
 * hub.on('CompactionFinished', (event) => console.log(event.sessionId, event.tokensAfter));
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * hub.attach(loop);
 * ```
 */
export function createTelemetryHub({ onListenerError }: TelemetryHubOptions = {}): TelemetryHub {
  const emitter = new EventEmitter();
  // One guarded wrapper per listener, so `off` can find what `on` registered.
  const wrappers = new WeakMap<object, (event: TelemetryEvent) => void>();
  const attachments = new Map<TelemetrySource, () => void>();

  const wrapperFor = (listener: (event: never) => void): ((event: TelemetryEvent) => void) => {
    let wrapper = wrappers.get(listener);
    if (wrapper === undefined) {
      wrapper = safeListener(listener as (event: TelemetryEvent) => void, onListenerError);
      wrappers.set(listener, wrapper);
    }
    return wrapper;
  };

  const dispatch = (event: TelemetryEvent): void => {
    emitter.emit(event.type, event);
    emitter.emit('*', event);
  };

  const off: TelemetryHub['off'] = (type, listener) => {
    const wrapper = wrappers.get(listener);
    if (wrapper !== undefined) {
      emitter.off(type, wrapper);
    }
  };

  return {
    attach(source) {
      if (typeof source !== 'object' || source === null || typeof source.on !== 'function') {
        throw new ConfigError('attach expects an XState actor (an object with `on`).', {
          code: 'config_invalid_telemetry_source',
        });
      }
      const existing = attachments.get(source);
      if (existing !== undefined) {
        return existing;
      }
      const subscription = source.on('*', dispatch);
      const detach = (): void => {
        if (attachments.get(source) === detach) {
          attachments.delete(source);
          subscription.unsubscribe();
        }
      };
      attachments.set(source, detach);
      return detach;
    },
    on(type, listener) {
      emitter.on(type, wrapperFor(listener));
      return () => off(type, listener);
    },
    once(type, listener) {
      emitter.once(type, wrapperFor(listener));
      return () => off(type, listener);
    },
    off,
    detachAll() {
      for (const detach of [...attachments.values()]) {
        detach();
      }
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
