import t from 'tap';
import { dialect, jsonBody, startTestServer } from '../helpers/server.js';
import { GPS, observation } from './sensors-support.js';

const TYPES = '/api/v1.0/activity/patrols/types';

/** Reads one sample's value from the Prometheus text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return 0;
}

t.test(`/metrics (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_METRICS_TOKEN: 'scrape-token-0123456789' } });
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  const scrape = async () => {
    const response = await s.request('/metrics', { headers: { Authorization: 'Bearer scrape-token-0123456789' } });
    t.equal(response.status, 200);
    return response.text();
  };

  await t.test('protected: the scrape token or view_metrics', async (t) => {
    t.equal((await s.request('/metrics')).status, 401, 'no credentials');
    t.equal((await s.request('/metrics', { headers: { Authorization: 'Bearer wrong-token' } })).status, 401, 'a wrong token');
    await admin.createUser({ tenant: 'default', username: 'watcher', password: 'Quiet-Heron-Passphrase-1', permissions: [] });
    const watcher = (await s.login('watcher', 'Quiet-Heron-Passphrase-1')).access_token;
    t.equal((await s.request('/metrics', { token: watcher })).status, 403, 'a user without view_metrics');
    await admin.grant('watcher', ['view_metrics']);
    t.equal((await s.request('/metrics', { token: watcher })).status, 200, 'with view_metrics');
    const bySuperuser = await s.request('/metrics', { token });
    t.equal(bySuperuser.status, 200, 'a superuser has view_metrics');
    t.match(bySuperuser.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    t.equal(bySuperuser.headers.get('cache-control'), 'no-store');
  });

  await t.test('request durations by route and status; conditional GET outcomes', async (t) => {
    const before = await scrape();
    const first = await s.request(TYPES, { token });
    const etag = first.headers.get('etag')!;
    t.equal((await s.request(TYPES, { token, headers: { 'If-None-Match': etag } })).status, 304);
    t.equal((await s.request(TYPES, { token, headers: { 'If-None-Match': '"stale"' } })).status, 200);
    t.equal((await s.request('/no/such/path')).status, 404);
    const after = await scrape();
    const count = (labels: Record<string, string>) => sample(after, 'fieldops_http_request_duration_seconds_count', labels) - sample(before, 'fieldops_http_request_duration_seconds_count', labels);
    t.equal(count({ route: 'patroltypes.list', method: 'GET', status: '200' }), 2);
    t.equal(count({ route: 'patroltypes.list', method: 'GET', status: '304' }), 1);
    t.equal(count({ route: 'unmatched', method: 'GET', status: '404' }), 1);
    t.ok(sample(after, 'fieldops_http_request_duration_seconds_bucket', { route: 'patroltypes.list', status: '200', le: '+Inf' }) >= 2, 'a histogram');
    const conditional = (outcome: string) => sample(after, 'fieldops_http_conditional_get_total', { route: 'patroltypes.list', outcome }) - sample(before, 'fieldops_http_conditional_get_total', { route: 'patroltypes.list', outcome });
    t.equal(conditional('304'), 1, 'a revalidation that saved the body');
    t.equal(conditional('200'), 1, 'a revalidation that sent it');
  });

  await t.test('tokens issued by grant', async (t) => {
    const before = await scrape();
    const tokens = await s.login();
    await s.json('/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: tokens.refresh_token }) });
    await s.json('/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: 'wrong-password-1' }) });
    const after = await scrape();
    const issued = (grant: string) => sample(after, 'fieldops_oauth_tokens_issued_total', { grant }) - sample(before, 'fieldops_oauth_tokens_issued_total', { grant });
    t.equal(issued('password'), 1, 'a failed login issues nothing');
    t.equal(issued('refresh_token'), 1);
  });

  await t.test('sensor observations by outcome', async (t) => {
    const before = await scrape();
    t.equal((await s.json(GPS, jsonBody([observation('m-1', 1), observation('m-1', 2)], { token }))).status, 201);
    t.equal((await s.json(GPS, jsonBody([observation('m-1', 2), observation('m-1', 3)], { token }))).status, 201);
    t.equal((await s.json(GPS, jsonBody([observation('m-1', 4), { manufacturer_id: 'm-1' }, observation('m-1', 5)], { token }))).status, 400, 'refused by its schema');
    t.equal((await s.json(GPS, jsonBody([observation('m-1', 6, { recorded_at: '2026-02-30T10:00:00Z' })], { token }))).status, 400);
    const after = await scrape();
    const outcome = (name: string) => sample(after, 'fieldops_sensor_observations_total', { outcome: name }) - sample(before, 'fieldops_sensor_observations_total', { outcome: name });
    t.equal(outcome('created'), 3);
    t.equal(outcome('duplicate'), 1);
    t.equal(outcome('rejected'), 4, 'every item of a refused batch');
  });

  await t.test('steady sensor batches by how they were stored', async (t) => {
    const before = await scrape();
    for (let minute = 10; minute < 13; minute++) t.equal((await s.json(GPS, jsonBody([observation('steady-1', minute)], { token }))).status, 201);
    const after = await scrape();
    const outcome = (name: string) => sample(after, 'fieldops_sensor_steady_batches_total', { outcome: name }) - sample(before, 'fieldops_sensor_steady_batches_total', { outcome: name });
    t.same(['transaction', 'read', 'remembered', 'stale'].map(outcome), [1, 1, 1, 0], 'a new source in a transaction, then a read, then remembered');
  });

  await t.test('database pool usage', async (t) => {
    const text = await scrape();
    for (const state of ['used', 'free', 'pending_acquire', 'pending_create', 'max']) t.match(text, new RegExp(`fieldops_db_pool_connections\\{state="${state}"\\} \\d+`), state);
    t.ok(sample(text, 'fieldops_db_pool_connections', { state: 'max' }) >= 1);
    t.match(text, /fieldops_process_resident_memory_bytes/, 'process metrics too');
  });
});
