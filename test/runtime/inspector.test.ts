import { createServer } from 'node:net';
import {
  createWebSocketInspector,
  createWebSocketReceiver,
  type StatelyInspectionEvent,
} from '@statelyai/inspect';
import { createInspectorServer } from '@statelyai/inspect/server';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

describe('createAgentLoop({inspect})', () => {
  it('passes every actor, event and snapshot of the loop to the inspector', async () => {
    const events: InspectionEvent[] = [];
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text: 'hello back' }] }),
      inspect: (event) => events.push(event),
    });
    loop.start();
    await runTurn(loop, 'hello');
    const types = new Set(events.map((event) => event.type));
    expect(types).toEqual(
      new Set([
        '@xstate.actor',
        '@xstate.event',
        '@xstate.snapshot',
        '@xstate.action',
        '@xstate.microstep',
      ]),
    );
    const userMessage = events.find(
      (event) => event.type === '@xstate.event' && event.event.type === 'user.message',
    );
    expect(userMessage).toBeDefined();
    loop.stop();
  });

  it("reaches a viewer through @statelyai/inspect's local WebSocket relay", async () => {
    const port = await freePort();
    const server = createInspectorServer({ port, autoOpen: false });
    const url = `ws://127.0.0.1:${port}`;
    const received: StatelyInspectionEvent[] = [];
    const receiver = createWebSocketReceiver({ server: url });
    const gotSnapshot = new Promise<void>((resolve) => {
      receiver.subscribe((event) => {
        received.push(event);
        if (
          event.type === '@xstate.snapshot' &&
          JSON.stringify(event).includes('"idle"') &&
          received.length > 10
        )
          resolve();
      });
    });
    const inspector = createWebSocketInspector({ url });
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text: 'hello back' }] }),
      inspect: inspector.inspect,
    });
    loop.start();
    await runTurn(loop, 'hello');
    await gotSnapshot;
    expect(received.some((event) => event.type === '@xstate.actor')).toBe(true);
    expect(received.some((event) => event.type === '@xstate.event')).toBe(true);
    loop.stop();
    inspector.stop();
    server.stop();
  });
});
