import { openAgentLoop, runTurn } from 'loopkeeper';
import { PostgresSessionStore } from 'loopkeeper/postgres';
import { ScriptedModel } from 'loopkeeper/testing';
import pg from 'pg';

// In every worker process: one pool and one store over it.
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });
const store = new PostgresSessionStore({ pool });
await store.migrate(); // creates the table if missing; run it at deploy or start-up

// Any worker opens any session; it resumes from the latest compaction marker.
const loop = await openAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'Noted.' }] }),
  store,
  sessionId: 'support-42',
});
loop.start();
console.log((await runTurn(loop, 'My order number is 1234.')).text);
loop.stop();
await pool.end();
