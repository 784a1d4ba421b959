import * as clients from '@restatedev/restate-sdk-clients';
import type { LoopObject } from 'loopkeeper/restate';

const session = clients
  .connect({ url: 'http://127.0.0.1:8080' })
  .objectClient<LoopObject>({ name: 'loopkeeper' }, 'session-42');
const result = await session.send({ content: 'Summarize the repo' });
const history = await session.history();
const page = await session.telemetry({ fromSeq: 1, limit: 100 }); // then fromSeq: page.nextSeq
console.log(result.text, history.length, page.events.length);
