import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { startServer } from '../../server/main.js';
import { createTestDatabase, unavailableReason } from '../helpers/database.js';
import { ADMIN_PASSWORD, CLI_CLIENT, dialect, startTestServer } from '../helpers/server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

/** `/readyz` (503 while not ready) and recovery: the server keeps running throughout. */

t.test(`readiness fails while a migration is pending (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  t.same((await s.json('/readyz')).body, { status: 'ready' });
  const { knex } = s.server.runtime.database;
  const newest = await knex('knex_migrations').orderBy('id', 'desc').first();
  await knex('knex_migrations').where({ id: newest.id }).delete();
  const pending = await s.json('/readyz');
  t.equal(pending.status, 503, 'not ready while the newest migration is not recorded');
  t.match(pending.body.status.detail, new RegExp(`Pending migrations: ${newest.name}`));
  t.equal(pending.headers.get('cache-control'), 'no-store');
  t.equal((await s.json('/healthz')).status, 200, 'alive all the same');
  await knex('knex_migrations').insert(newest);
  t.same((await s.json('/readyz')).body, { status: 'ready' }, 'ready again once it is recorded');
});

t.test('PostgreSQL unreachable: 503 fast, never 500, and service resumes by itself', async (t) => {
  if (dialect !== 'postgres') return void t.pass('PostgreSQL only (FIELDOPS_TEST_DIALECT=postgres)', { skip: 'PostgreSQL only' });
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  const url = new URL(db.location);
  const proxy = await startTcpProxy(t, { host: url.hostname, port: Number(url.port || 5432) });
  url.port = String(proxy.port);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-ready-'));
  const config = loadConfig(
    { FIELDOPS_ADMIN_PASSWORD: ADMIN_PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', FIELDOPS_DATA_DIR: dataDir, FIELDOPS_PATROL_SWEEP_SECONDS: '0', FIELDOPS_CHECK_RESPONSES: '1' },
    { port: 0, host: '127.0.0.1', database: url.toString() },
  );
  const server = await startServer(config, { logger: createLogger('silent') });
  t.teardown(async () => {
    await server.close();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const get = async (p: string, token?: string) => {
    const started = Date.now();
    const response = await fetch(server.url + p, { headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(15000) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, ms: Date.now() - started };
  };
  const login = await fetch(`${server.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: CLI_CLIENT, username: 'admin', password: ADMIN_PASSWORD }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const types = '/api/v1.0/activity/patrols/types';
  t.equal((await get(types, token)).status, 200);
  t.equal((await get('/readyz')).status, 200);

  await proxy.stop();
  const down = await get('/readyz');
  t.equal(down.status, 503, 'not ready while the database is unreachable');
  t.match(down.body.status.detail, /unreachable/);
  t.ok(down.ms < 5000, `answered in ${down.ms} ms`);
  for (let i = 0; i < 3; i++) {
    const request = await get(types, token);
    t.equal(request.status, 503, 'an API request fails with 503, not 500');
    t.equal(request.body.status.code, 503);
    t.ok(request.ms < 5000, `answered in ${request.ms} ms`);
  }
  t.equal((await get('/healthz')).status, 200, 'the process keeps running');
  // Under load: a burst of concurrent requests while the database is away all fail fast.
  const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => get(i % 2 ? types : '/api/v1.0/activity/patrols', token)));
  t.same([...new Set(burst.map((response) => response.status))], [503], 'forty concurrent requests: every one 503');
  t.ok(Math.max(...burst.map((response) => response.ms)) < 8000, `the slowest answered in ${Math.max(...burst.map((response) => response.ms))} ms`);

  await proxy.start();
  let ready = await get('/readyz');
  for (let i = 0; i < 50 && ready.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    ready = await get('/readyz');
  }
  t.equal(ready.status, 200, 'ready again by itself');
  t.equal((await get(types, token)).status, 200, 'requests succeed again');
  t.same(server.runtime.services.responseCheck?.violations, [], 'the 503s are described responses');
});
