import { startCluster, eventually } from './test/restate/support/cluster.js';
const cluster = await startCluster({ workers: 1 });
const admin = cluster.server.adminUrl;
const sql = async (query: string) => (await (await fetch(`${admin}/query`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) })).json());
try {
  const session = cluster.session('p1');
  const pending = Promise.resolve(session.send({ content: JSON.stringify({ plan: [{ tools: [{ label: 'slow', delayMs: 20000 }] }, { text: 'never' }] }) })).then((r) => ({ r }), (e) => ({ e: String(e) }));
  await eventually(() => cluster.effects().find((l) => l[1] === 'start'));
  const rows = await sql("SELECT id, status, target_handler_name FROM sys_invocation WHERE target_handler_name = 'send'");
  console.log(JSON.stringify(rows));
  const id = rows.rows[0].id;
  const p = await fetch(`${admin}/invocations/${id}/pause`, { method: 'PATCH' });
  console.log('pause', p.status, await p.text());
  await new Promise((r) => setTimeout(r, 1000));
  console.log(JSON.stringify(await sql(`SELECT id, status FROM sys_invocation WHERE id = '${id}'`)));
  const t0 = Date.now();
  console.log('abort', await session.abort());
  const result = await Promise.race([pending, new Promise((r) => setTimeout(() => r('timeout'), 5000))]);
  console.log('after abort', Date.now() - t0, JSON.stringify(result).slice(0, 300));
  console.log(JSON.stringify(await sql(`SELECT id, status FROM sys_invocation WHERE id = '${id}'`)));
  const r = await fetch(`${admin}/invocations/${id}/resume`, { method: 'PATCH' });
  console.log('resume', r.status, await r.text());
  const result2 = await Promise.race([pending, new Promise((r) => setTimeout(() => r('timeout'), 5000))]);
  console.log('after resume', JSON.stringify(result2).slice(0, 300));
  console.log(JSON.stringify(await sql(`SELECT id, status FROM sys_invocation WHERE id = '${id}'`)));
} finally { await cluster.stop(); }
