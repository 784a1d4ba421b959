import * as restate from '@restatedev/restate-sdk';
import { createLoopObject } from 'loopkeeper/restate';
import { ScriptedModel } from 'loopkeeper/testing';

const object = createLoopObject({
  loop: () => ({ model: new ScriptedModel({ script: () => ({ text: 'ok' }) }) }),
  // Give invocations more time than the slowest model or tool call.
  restate: { inactivityTimeout: { minutes: 5 }, abortTimeout: { minutes: 15 } },
});
await restate.serve({ services: [object], port: 9080 });
