import http from 'node:http';
import t from 'tap';
import Database from 'better-sqlite3';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';
import { TYPES } from '../helpers/catalog.js';

const PASSWORD = 'Workers-Pass-1';
const METRICS_TOKEN = 'workers-metrics-token';

/** One request on a connection of its own (no keep-alive), so the cluster may pick any worker. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false, timeout: 10_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.end(options.body);
  });
}

/** The pids of the workers that logged a request to `route` (request logs carry the worker's pid). */
function answeringPids(output: string, route: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; route?: string; pid?: number; worker?: number };
    if (entry.msg === 'request' && entry.route === route && entry.worker !== undefined) pids.add(entry.pid!);
  }
  return pids;
}

const metricValue = (body: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"=,]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(body)?.[1] ?? NaN);

t.test(`serve --workers 2 (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = {
    DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_METRICS_TOKEN: METRICS_TOKEN,
    FIELDOPS_PATROL_SWEEP_SECONDS: '1', LOG_LEVEL: 'info',
  };
  const server = serveProcess(env, ['--workers', '2']);
  t.teardown(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
  });
  const url = await server.url;
  const pids = /workers: {3}2 \(pids (\d+), (\d+); primary (\d+)\)/.exec(server.output());
  t.ok(pids, 'the banner names the workers and the primary');
  const workerPids = [Number(pids![1]), Number(pids![2])];
  t.equal(Number(pids![3]), server.child.pid, 'the primary is the process started');
  t.equal(server.output().match(/migrations applied/g)?.length, 1, 'the migrations ran once, in the primary');

  // Both workers answer, and /metrics sums them whichever worker answers it.
  for (let i = 0; i < 10; i++) t.equal((await request(`${url}/healthz`)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same([...answeringPids(server.output(), 'healthz')].sort(), [...workerPids].sort(), 'requests on fresh connections reach both workers');
  for (let i = 0; i < 4; i++) {
    const metrics = await request(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    t.equal(metrics.status, 200);
    t.equal(metricValue(metrics.body, 'fieldops_http_request_duration_seconds_count{route="healthz",method="GET",status="200"}'), 10, 'the healthz count is the sum over both workers');
    t.ok(metricValue(metrics.body, 'fieldops_db_pool_connections{state="max"}') >= 2, 'pool gauges add up too');
  }
  t.same([...answeringPids(server.output(), 'metrics')].length, 2, 'and both workers answered /metrics with the same sum');

  const login = await request(`${url}/oauth2/token/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }).toString() });
  t.equal(login.status, 200, 'the admin created once by the primary logs in');
  const headers = { Authorization: `Bearer ${(JSON.parse(login.body) as { access_token: string }).access_token}`, 'Content-Type': 'application/json' };

  // Caches stay correct between workers: a write through one is seen at once through every one.
  t.equal((await request(url + TYPES, { method: 'POST', headers, body: JSON.stringify({ value: 'shared', display: 'Shared' }) })).status, 201);
  const etag = (await request(url + TYPES, { headers })).headers.etag!;
  for (let i = 0; i < 4; i++) t.equal((await request(url + TYPES, { headers: { ...headers, 'If-None-Match': etag } })).status, 304, 'each worker revalidates the list');
  t.equal((await request(`${url}${TYPES}/shared`, { method: 'PATCH', headers, body: JSON.stringify({ display: 'Changed' }) })).status, 200);
  for (let i = 0; i < 4; i++) t.equal((await request(url + TYPES, { headers: { ...headers, 'If-None-Match': etag } })).status, 200, 'each worker sees the write at once');

  // Concurrent writes through both workers (new sensor sources, observations): on SQLite several
  // processes share one file, and a transaction that read before it wrote used to fail at once
  // (SQLITE_BUSY_SNAPSHOT) when the other process had committed meanwhile.
  const sensorStatuses: Record<number, number> = {};
  await Promise.all(Array.from({ length: 8 }, async (_, caller) => {
    for (let batch = 0; batch < 8; batch++) {
      const observations = Array.from({ length: 10 }, (_, i) => ({ manufacturer_id: `collar-${caller}`, recorded_at: new Date(Date.UTC(2026, 0, 1, 0, batch, i)).toISOString(), location: { lat: -1, lon: 36 } }));
      const { status } = await request(`${url}/sensors/gps-radio/workers/status`, { method: 'POST', headers, body: JSON.stringify(observations) });
      sensorStatuses[status] = (sensorStatuses[status] ?? 0) + 1;
    }
  }));
  t.same(sensorStatuses, { 201: 64 }, 'every concurrent write through either worker succeeds');

  // Both workers sweep every second: each patrol that falls due is completed exactly once.
  const soon = new Date(Date.now() + 1200).toISOString();
  const patrols = await Promise.all(Array.from({ length: 6 }, async (_, i) => {
    const created = await request(`${url}/api/v1.0/activity/patrols`, { method: 'POST', headers, body: JSON.stringify({ title: `sweep ${i}`, patrol_segments: [{ time_range: { start_time: new Date(Date.now() - 3600_000).toISOString(), end_time: soon } }] }) });
    return JSON.parse(created.body) as { id: string; state: string };
  }));
  t.ok(patrols.every((patrol) => patrol.state === 'open'), 'open until their segments end');
  await new Promise((resolve) => setTimeout(resolve, 3500));
  for (const patrol of patrols) {
    const after = JSON.parse((await request(`${url}/api/v1.0/activity/patrols/${patrol.id}`, { headers })).body) as { state: string; updates: Array<{ user: { username: string } }> };
    t.equal(after.state, 'done');
    t.equal(after.updates.filter((update) => update.user.username === 'system').length, 1, 'one automatic transition, by the system');
  }

  // A worker killed outright is replaced (logged), and the service keeps answering meanwhile.
  // NOTE: a connection the primary hands to a worker in the instant it dies, before the primary
  // sees the death, is lost; so the requests start once it is seen.
  process.kill(workerPids[0]!, 'SIGKILL');
  const seen = Date.now() + 10_000;
  while (!/worker 1 exited unexpectedly/.test(server.output()) && Date.now() < seen) await new Promise((resolve) => setTimeout(resolve, 10));
  for (let i = 0; i < 6; i++) t.equal((await request(`${url}/healthz`)).status, 200, 'the other worker answers');
  const deadline = Date.now() + 20_000;
  while (!/"worker":3,"workerPid":\d+,"msg":"worker serving"/.test(server.output()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  t.match(server.output(), /"level":40[^\n]*"signal":"SIGKILL"[^\n]*worker 1 exited unexpectedly \(signal SIGKILL\); replacing it in 250 ms/, 'the death is logged, with the back-off');
  const replacement = Number(/"worker":3,"workerPid":(\d+),"msg":"worker serving"/.exec(server.output())?.[1]);
  t.ok(replacement > 0 && !workerPids.includes(replacement), 'a new worker replaced it');
  for (let i = 0; i < 10; i++) t.equal((await request(`${url}/healthz`)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.ok(answeringPids(server.output(), 'healthz').has(replacement), 'the replacement serves');
  t.notMatch(server.output(), new RegExp(`${PASSWORD}|${METRICS_TOKEN}`), 'no secrets in the logs');

  // SIGTERM to the primary drains every worker: a request still sending its body is answered.
  const { port, hostname } = new URL(url);
  const inFlight = new Promise<number>((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'POST', path: '/oauth2/token/', agent: false, headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '38' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.write('grant_type=password&client_id=');
    setTimeout(() => {
      server.child.kill('SIGTERM');
      setTimeout(() => req.end('xyz12345'), 500);
    }, 200);
  });
  t.equal(await inFlight, 401, 'the in-flight request completed (unknown client)');
  t.equal(await server.exited, 0, 'the primary exits 0');
  const output = server.output();
  t.ok(output.indexOf('fieldops: shutting down (2 workers finishing in-flight requests)\n') >= 0, 'says it drains');
  t.equal(output.match(/"msg":"worker stopped"/g)?.length, 2, 'both workers stopped');
  // (stdout and stderr are two pipes: their order in `output` is not the order of writing.)
  t.match(output, /\nfieldops: stopped\n/, 'then it says it finished');
  await t.rejects(request(`${url}/healthz`), 'nothing listens any more');

  if (dialect === 'sqlite') {
    const file = new Database(db.location, { readonly: true });
    t.equal(file.pragma('journal_mode', { simple: true }), 'wal', 'several processes share the SQLite file in WAL mode');
    file.close();
  }
});

t.test('the generated admin password is printed once, by the primary', async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const server = serveProcess({ DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir, FIELDOPS_WORKERS: '2' });
  const url = await server.url;
  const printed = server.output().match(/admin password \(shown only this once\): (\S+)/g) ?? [];
  t.equal(printed.length, 1, 'one password line');
  const password = /shown only this once\): (\S+)/.exec(printed[0]!)![1]!;
  const login = await request(`${url}/oauth2/token/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password }).toString() });
  t.equal(login.status, 200, 'and it works');
  t.match(server.output(), /workers: {3}2 \(pids/, 'FIELDOPS_WORKERS=2 forks two workers');
  server.child.kill('SIGINT');
  t.equal(await server.exited, 0, 'SIGINT drains and exits 0 too');
  t.match(server.output(), /fieldops: stopped\n/);
});

t.test('--workers and FIELDOPS_WORKERS refuse what is not a count', async (t) => {
  for (const value of ['0', 'junk', '1.5', '-2', '257']) {
    const result = await runCli(['serve', '--port', '0', '--workers', value]);
    t.equal(result.code, 2, `--workers ${value}: a usage error`);
    t.match(result.stderr, new RegExp(`^error: --workers must be a number of processes from 1 to 256, or auto; got "${value.replace('.', '\\.')}"\nhint: give auto \\(one per core: \\d+ here\\) or a count such as 2`), 'an error and a hint');
    t.notMatch(result.stderr, /at .*\.js/, 'no stack');
  }
  const result = await runCli(['serve', '--port', '0'], { env: { FIELDOPS_WORKERS: 'many' } });
  t.equal(result.code, 1);
  t.match(result.stderr, /^error: FIELDOPS_WORKERS must be a number of processes from 1 to 256, or auto; got "many"\nhint: /);
  const help = await runCli(['serve', '--help']);
  t.match(help.stdout, /--workers <N\|auto>/, 'the option is in the help');
});
