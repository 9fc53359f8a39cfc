import http from 'node:http';
import t, { type Test } from 'tap';
import { type RealtimeSession, realtimeSession } from '../helpers/realtime-session.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';

const PASSWORD = 'Workers-Realtime-1';
const E = '/api/v1.0/activity/events';

/** One request on a connection of its own (no keep-alive), so the primary routes each one afresh. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {}): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false, timeout: 10_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.end(options.body);
  });
}

async function login(url: string, username: string): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username, password: PASSWORD }).toString();
  const answer = await request(`${url}/oauth2/token/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  if (answer.status !== 200) throw new Error(`login ${username}: ${answer.status} ${answer.body}`);
  return (JSON.parse(answer.body) as { access_token: string }).access_token;
}

type Session = RealtimeSession;
const session = (t: Test, url: string, token: string, transports?: Array<'polling' | 'websocket'>) => realtimeSession(t, url, token, { transports });

/** The worker slot a session's id names (`w<slot>.`). */
const slotOf = (s: Session) => /^w(\d+)\./.exec((s.socket.io.engine as unknown as { id: string }).id)?.[1];

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

t.test(`serve --workers 2: realtime sessions on every worker (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD };
  const server = serveProcess(env, ['--workers', '2']);
  t.teardown(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
  });
  const url = await server.url;
  const cli = (args: string[]) => runCli(['admin', ...args, '--database', db.location], { env: { FIELDOPS_DATA_DIR: db.dataDir } });
  t.equal((await cli(['create-tenant', '--name', 'other'])).code, 0);
  t.equal((await cli(['create-user', '--tenant', 'other', '--username', 'outsider', '--password', PASSWORD, '--superuser'])).code, 0);
  const token = await login(url, 'admin');
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  t.equal((await request(`${url}/api/v2.0/activity/eventtypes`, { method: 'POST', headers, body: JSON.stringify({ value: 'sighting', display: 'Sighting' }) })).status, 201);

  // Sessions as the web app opens them: each connects and is authorised, on both workers.
  const sessions = await Promise.all(Array.from({ length: 8 }, () => session(t, url, token)));
  t.same(sessions.map((s) => s.status), sessions.map(() => 200), 'every default-transport session connects and is authorised');
  const polling = await session(t, url, token, ['polling']);
  t.equal(polling.status, 200, 'a polling-only session too');
  const everyone = [...sessions, polling];
  t.same([...new Set(everyone.map(slotOf))].sort(), ['0', '1'], 'the sessions are spread over both workers');
  await until(() => sessions.every((s) => s.socket.io.engine.transport.name === 'websocket'));
  t.ok(sessions.every((s) => s.socket.io.engine.transport.name === 'websocket'), 'and each one upgrades to a websocket (on its worker)');
  const outsider = await session(t, url, await login(url, 'outsider'));
  t.equal(outsider.status, 200);

  // A polling-only session keeps working across many requests (each echo is a POST and a poll).
  for (let i = 0; i < 20; i++) {
    const answered = new Promise((resolve) => polling.socket.once('echo_resp', resolve));
    polling.socket.emit('echo', { id: i });
    t.same(await answered, { data: 'pong' }, `echo ${i}`);
  }
  t.ok(polling.socket.connected && polling.socket.io.engine.transport.name === 'polling', 'still connected, still polling');

  // Events written through either worker reach every session of the tenant, once each, in order.
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const created = await request(url + E, { method: 'POST', headers, body: JSON.stringify({ event_type: 'sighting', title: `sighting ${i}`, event_details: {} }) });
    t.equal(created.status, 201, `event ${i} created`);
    ids.push((JSON.parse(created.body) as { id: string }).id);
  }
  const pushed = (s: Session) => s.received.filter(([type]) => type === 'new_event').map(([, payload]) => [payload.mid, payload.event_id]);
  await until(() => everyone.every((s) => pushed(s).length >= ids.length));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const expected = ids.map((id, i) => [i + 1, id]);
  for (const [i, s] of everyone.entries()) t.same(pushed(s), expected, `session ${i} (worker ${slotOf(s)}): every event once, mid 1..${ids.length} in order`);
  t.same(outsider.received.filter(([type]) => type.endsWith('_event')), [], 'a session of another tenant gets nothing');

  // Raw engine.io long-polling, each request on a new connection: the sid alone finds the worker.
  const handshake = await request(`${url}/socket.io/?EIO=4&transport=polling`);
  const sid = (JSON.parse(handshake.body.slice(1)) as { sid: string }).sid;
  t.match(sid, /^w[01]\./, 'the session id names its worker');
  const statuses: Record<number, number> = {};
  for (let i = 0; i < 10; i++) {
    const { status } = await request(`${url}/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(sid)}`, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: '3' });
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  t.same(statuses, { 200: 10 }, 'ten requests on ten connections all reach the session\'s worker');
  const unknown = await request(`${url}/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(sid.slice(0, 3))}unknown`);
  t.equal(unknown.status, 400, 'an unknown session of the worker named: engine.io\'s "Session ID unknown"');

  // A keep-alive connection (as browsers and proxies keep them) stays with the worker it was
  // handed to; a poll of another worker's session on it is refused with Connection: close, and
  // the retry, on a new connection, reaches the session's worker.
  const sids: Record<string, string> = {};
  for (let i = 0; i < 20 && Object.keys(sids).length < 2; i++) {
    const opened = (JSON.parse((await request(`${url}/socket.io/?EIO=4&transport=polling`)).body.slice(1)) as { sid: string }).sid;
    sids[opened.slice(0, 2)] = opened;
  }
  t.same(Object.keys(sids).sort(), ['w0', 'w1'], 'a session on each worker');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const send = (id: string) => request(`${url}/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(id)}`, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: '3', agent });
  t.equal((await send(sids.w0!)).status, 200, "worker 0's session, on a new keep-alive connection");
  const misrouted = await send(sids.w1!);
  t.equal(misrouted.status, 503, "worker 1's session on that connection: refused by worker 0 (not engine.io's 400)");
  t.equal(misrouted.connection, 'close', 'and the connection is closed');
  t.equal((await send(sids.w1!)).status, 200, "the retry, on a new connection, reaches worker 1's session");
});
