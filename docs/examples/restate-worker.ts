import * as restate from '@restatedev/restate-sdk';
import { createLoopObject } from 'loopkeeper/restate';
import { ScriptedModel } from 'loopkeeper/testing';

const object = createLoopObject({
  loop: () => ({ model: new ScriptedModel({ script: () => ({ text: 'ok' }) }) }),
  // Give invocations more time than the slowest model or tool call.
  restate: { inactivityTimeout: { minutes: 5 }, abortTimeout: { minutes: 15 } },
  // The defaults, written out: see "Limits" in docs/distributed.md.
  limits: { maxEntryBytes: 4 * 1024 * 1024, maxSessionBytes: 8 * 1024 * 1024 },
});
await restate.serve({ services: [object], port: 9080 });
