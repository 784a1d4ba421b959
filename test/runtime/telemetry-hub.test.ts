import { ConfigError, createTelemetryHub, type TelemetryEvent } from 'loopkeeper';
import { type ListenerErrorInfo, safeListener } from 'loopkeeper/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, createActor, emit, setup } from 'xstate';

/** A tiny stand-in for the loop: each `run` event emits RunStarted then RunFinished. */
const runnerMachine = setup({
  types: {
    context: {} as { sessionId: string; runs: number },
    input: {} as { sessionId: string },
    events: {} as { type: 'run' },
    emitted: {} as TelemetryEvent,
  },
}).createMachine({
  context: ({ input }) => ({ sessionId: input.sessionId, runs: 0 }),
  on: {
    run: {
      actions: [
        assign({ runs: ({ context }) => context.runs + 1 }),
        emit(({ context }) => ({
          type: 'RunStarted' as const,
          sessionId: context.sessionId,
          runId: `run_${context.runs}`,
          at: 1,
        })),
        emit(({ context }) => ({
          type: 'RunFinished' as const,
          sessionId: context.sessionId,
          runId: `run_${context.runs}`,
          at: 2,
          outcome: 'completed' as const,
          steps: 1,
          error: undefined,
        })),
      ],
    },
  },
});

function startRunner(sessionId: string) {
  const actor = createActor(runnerMachine, { input: { sessionId } });
  actor.start();
  actors.push(actor);
  return actor;
}

const actors: { stop(): void }[] = [];
afterEach(() => {
  for (const actor of actors.splice(0)) {
    actor.stop();
  }
});

/** Lets a macrotask pass, so an error XState reports asynchronously would have surfaced. */
const nextMacrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

const label = (event: TelemetryEvent) => `${event.sessionId}:${event.type}:${event.runId}`;

describe('createTelemetryHub', () => {
  it('delivers the events of two actors to one subscriber, with "*" and by type', () => {
    const hub = createTelemetryHub();
    const first = startRunner('first');
    const second = startRunner('second');
    hub.attach(first);
    hub.attach(second);
    const everything: string[] = [];
    const finishes: string[] = [];
    hub.on('*', (event) => everything.push(label(event)));
    hub.on('RunFinished', (event) => finishes.push(`${event.sessionId}:${event.outcome}`));

    first.send({ type: 'run' });
    second.send({ type: 'run' });
    first.send({ type: 'run' });

    expect(everything).toEqual([
      'first:RunStarted:run_1',
      'first:RunFinished:run_1',
      'second:RunStarted:run_1',
      'second:RunFinished:run_1',
      'first:RunStarted:run_2',
      'first:RunFinished:run_2',
    ]);
    expect(finishes).toEqual(['first:completed', 'second:completed', 'first:completed']);
  });

  it('runs type listeners before "*" listeners and passes the event object as is', () => {
    const hub = createTelemetryHub();
    const actor = startRunner('s');
    hub.attach(actor);
    const order: string[] = [];
    let received: TelemetryEvent | undefined;
    hub.on('*', () => order.push('*'));
    hub.on('RunStarted', (event) => {
      order.push('RunStarted');
      received = event;
    });
    actor.send({ type: 'run' });
    expect(order).toEqual(['RunStarted', '*', '*']);
    expect(received).toEqual({ type: 'RunStarted', sessionId: 's', runId: 'run_1', at: 1 });
  });

  it('isolates a throwing listener: other listeners and the actor carry on', async () => {
    const errors: ListenerErrorInfo[] = [];
    const hub = createTelemetryHub({ onListenerError: (info) => errors.push(info) });
    const actor = startRunner('s');
    hub.attach(actor);
    hub.on('*', () => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    hub.on('*', (event) => seen.push(event.type));

    actor.send({ type: 'run' });
    actor.send({ type: 'run' });
    await nextMacrotask();

    expect(seen).toEqual(['RunStarted', 'RunFinished', 'RunStarted', 'RunFinished']);
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().context.runs).toBe(2);
    expect(errors).toHaveLength(4);
    expect(errors[0]?.event.type).toBe('RunStarted');
    expect(errors[0]?.error).toEqual(new Error('listener bug'));
  });

  it('logs the first error of each throwing listener once by default', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const hub = createTelemetryHub();
      const actor = startRunner('s');
      hub.attach(actor);
      hub.on('*', () => {
        throw new Error('first broken listener');
      });
      hub.on('RunStarted', () => {
        throw new Error('second broken listener');
      });
      actor.send({ type: 'run' });
      actor.send({ type: 'run' });
      await nextMacrotask();
      expect(consoleError).toHaveBeenCalledTimes(2);
    } finally {
      consoleError.mockRestore();
    }
  });

  it('reports a rejected async listener instead of leaving an unhandled rejection', async () => {
    const errors: unknown[] = [];
    const hub = createTelemetryHub({ onListenerError: ({ error }) => errors.push(error) });
    const actor = startRunner('s');
    hub.attach(actor);
    hub.on('RunFinished', async () => {
      throw new Error('async bug');
    });
    actor.send({ type: 'run' });
    await nextMacrotask();
    expect(errors).toEqual([new Error('async bug')]);
  });

  it('stops forwarding an actor once detached, and keeps the others', () => {
    const hub = createTelemetryHub();
    const first = startRunner('first');
    const second = startRunner('second');
    const detachFirst = hub.attach(first);
    hub.attach(second);
    const seen: string[] = [];
    hub.on('RunStarted', (event) => seen.push(event.sessionId));

    detachFirst();
    detachFirst();
    first.send({ type: 'run' });
    second.send({ type: 'run' });
    expect(seen).toEqual(['second']);

    hub.detachAll();
    second.send({ type: 'run' });
    expect(seen).toEqual(['second']);

    hub.attach(first);
    first.send({ type: 'run' });
    expect(seen).toEqual(['second', 'first']);
  });

  it('forwards each event once when the same actor is attached twice', () => {
    const hub = createTelemetryHub();
    const actor = startRunner('s');
    const detach = hub.attach(actor);
    expect(hub.attach(actor)).toBe(detach);
    const seen: string[] = [];
    hub.on('RunStarted', (event) => seen.push(event.runId));
    actor.send({ type: 'run' });
    expect(seen).toEqual(['run_1']);
  });

  it('removes listeners with off or the returned function, and runs once listeners once', () => {
    const hub = createTelemetryHub();
    const actor = startRunner('s');
    hub.attach(actor);
    const counts = { off: 0, returned: 0, once: 0, kept: 0 };
    const offListener = () => {
      counts.off += 1;
    };
    hub.on('RunStarted', offListener);
    const remove = hub.on('*', () => {
      counts.returned += 1;
    });
    hub.once('RunFinished', () => {
      counts.once += 1;
    });
    hub.on('RunStarted', () => {
      counts.kept += 1;
    });

    actor.send({ type: 'run' });
    hub.off('RunStarted', offListener);
    remove();
    actor.send({ type: 'run' });

    expect(counts).toEqual({ off: 1, returned: 2, once: 1, kept: 2 });
  });

  it('refuses to attach something that is not an actor', () => {
    const hub = createTelemetryHub();
    expect(() => hub.attach({} as never)).toThrowError(ConfigError);
  });
});

describe('safeListener', () => {
  it('keeps a listener attached directly with actor.on from throwing into XState', async () => {
    const actor = startRunner('s');
    const errors: ListenerErrorInfo<TelemetryEvent>[] = [];
    const seen: string[] = [];
    actor.on(
      '*',
      safeListener(
        (event: TelemetryEvent) => {
          seen.push(event.type);
          throw new Error('host bug');
        },
        (info) => errors.push(info),
      ),
    );
    actor.send({ type: 'run' });
    await nextMacrotask();
    expect(seen).toEqual(['RunStarted', 'RunFinished']);
    expect(errors.map((info) => info.event.type)).toEqual(['RunStarted', 'RunFinished']);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('swallows an error reporter that throws too', () => {
    const listener = safeListener(
      () => {
        throw new Error('listener');
      },
      () => {
        throw new Error('reporter');
      },
    );
    expect(() => listener({})).not.toThrow();
  });

  it('logs only the first failure by default', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const listener = safeListener((_event: number) => {
        throw new Error('again');
      });
      listener(1);
      listener(2);
      expect(consoleError).toHaveBeenCalledTimes(1);
    } finally {
      consoleError.mockRestore();
    }
  });
});
