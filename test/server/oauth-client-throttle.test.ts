import { randomBytes } from 'node:crypto';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { GateBusyError, WorkGate } from '../../server/security/work-gate.js';

/**
 * Issue 13 item 4: every random `client_secret` used to cost a full scrypt, unthrottled.
 * Client authentication is now throttled like passwords (per client_id and per address, 429
 * with Retry-After and an RFC 6749 body), and every scrypt passes a bounded gate (503 with
 * Retry-After when its queue is full). On the old code, each of these floods answered 401 to
 * every request: no 429, no 503.
 */
const SECRET = 'partner-secret-0123456789abcdef';
const randomSecret = () => randomBytes(24).toString('base64url');

const tokenRequest = (url: string, form: Record<string, string>) =>
  fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams(form) }).then(async (response) => ({
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  }));

const count = (results: Array<{ status: number }>, status: number) => results.filter((r) => r.status === status).length;

t.test(`client secrets are throttled per client_id, per address, and at the API (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_THROTTLE_PER_CLIENT: '6', FIELDOPS_THROTTLE_PER_ADDRESS: '1000', FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS: '0', FIELDOPS_SCRYPT_QUEUE: '1000', FIELDOPS_SCRYPT_QUEUE_PER_ADDRESS: '1000' } });
  if (!s) return;
  const { admin } = s.server.runtime;
  await admin.createClient({ tenant: 'default', clientId: 'partner', secret: SECRET, grants: ['password'], permissions: ['view_user'] });
  await admin.createClient({ tenant: 'default', clientId: 'gateway', secret: SECRET, permissions: ['view_user'] });

  const flood = await Promise.all(Array.from({ length: 100 }, () => tokenRequest(s.url, { grant_type: 'password', client_id: 'partner', client_secret: randomSecret(), username: 'admin', password: 'x' })));
  t.ok(count(flood, 401) >= 1 && count(flood, 401) <= 6, `at most 6 random secrets verified for one client_id (got ${count(flood, 401)})`);
  t.equal(count(flood, 429), 100 - count(flood, 401), 'the rest are refused before any scrypt');
  const refused = flood.find((r) => r.status === 429)!;
  t.equal(refused.body.error, 'temporarily_unavailable', 'RFC 6749 body');
  t.ok(Number(refused.retryAfter) >= 1, 'with Retry-After');
  const right = await tokenRequest(s.url, { grant_type: 'password', client_id: 'partner', client_secret: SECRET, username: 'admin', password: 'x' });
  t.equal(right.status, 429, 'the spent client_id stays throttled for the window, right secret or not');

  // The API's application credentials (client_id + client_secret on any request) are the same check.
  const api = await Promise.all(Array.from({ length: 40 }, () => s.json(`/users/me?client_id=gateway&client_secret=${randomSecret()}`)));
  t.ok(count(api, 401) <= 6, `at most 6 verified at the API (got ${count(api, 401)})`);
  const apiRefused = api.find((r) => r.status === 429);
  t.ok(apiRefused, 'the API answers 429 too');
  t.equal(apiRefused?.body.status.code, 429, "in the contract's error body");
  t.ok(Number(apiRefused?.headers.get('retry-after')) >= 1, 'with Retry-After');
});

t.test(`client secrets share the address's budget with passwords (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_THROTTLE_PER_CLIENT: '1000', FIELDOPS_THROTTLE_PER_ADDRESS: '8', FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS: '0', FIELDOPS_SCRYPT_QUEUE_PER_ADDRESS: '1000' } });
  if (!s) return;
  for (let i = 0; i < 30; i++) await s.server.runtime.admin.createClient({ tenant: 'default', clientId: `app-${i}`, secret: SECRET });
  const flood = await Promise.all(Array.from({ length: 30 }, (_, i) => tokenRequest(s.url, { grant_type: 'password', client_id: `app-${i}`, client_secret: randomSecret() })));
  t.ok(count(flood, 401) <= 8, `at most 8 verified from one address over 30 client ids (got ${count(flood, 401)})`);
  t.equal(count(flood, 429) + count(flood, 401), 30);
  const password = await tokenRequest(s.url, { grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: 'wrong-password-here' });
  t.equal(password.status, 429, 'password guesses from the same address are throttled too');
});

t.test(`the scrypt gate answers 503 at once instead of queueing a flood (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_THROTTLE_PER_CLIENT: '10000', FIELDOPS_THROTTLE_PER_ADDRESS: '10000', FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS: '0', FIELDOPS_SCRYPT_CONCURRENCY: '1', FIELDOPS_SCRYPT_QUEUE: '2', FIELDOPS_PASSWORD_HASH_COST: String(2 ** 14) } });
  if (!s) return;
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'busy', secret: SECRET, grants: ['password'] });
  const flood = await Promise.all(Array.from({ length: 40 }, () => tokenRequest(s.url, { grant_type: 'password', client_id: 'busy', client_secret: randomSecret() })));
  const busy = flood.filter((r) => r.status === 503);
  t.ok(busy.length >= 1, `some are refused as busy (${busy.length} of 40)`);
  t.same(new Set(flood.map((r) => r.status)), new Set([401, 503]), 'every other one was verified (401)');
  t.equal(busy[0]?.body.error, 'temporarily_unavailable');
  t.equal(busy[0]?.retryAfter, '1');
  const rows = await s.server.runtime.database.knex('auth_failures').where({ scope_key: 'client:busy' }).first();
  t.equal(Number(rows.failures), count(flood, 401), 'a request refused as busy was never verified, so it is not counted as a failure');
});

t.test(`a burst with the right secret from one address shares one check (${dialect})`, async (t) => {
  // One hash at a time and no queue: without sharing, all but one of the burst would be 503.
  const s = await startTestServer(t, { env: { FIELDOPS_SCRYPT_CONCURRENCY: '1', FIELDOPS_SCRYPT_QUEUE: '0' } });
  if (!s) return;
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'gateway', secret: SECRET, permissions: ['view_user'] });
  const burst = await Promise.all(Array.from({ length: 10 }, () => s.json(`/users/?client_id=gateway&client_secret=${SECRET}`)));
  t.same(burst.map((r) => r.status), Array(10).fill(200));
});

t.test('WorkGate: at most maxActive at once, at most maxQueued waiting, the rest refused at once', async (t) => {
  const gate = new WorkGate(2, 1, 1);
  let running = 0;
  let peak = 0;
  const releases: Array<() => void> = [];
  const job = () =>
    gate.run('a', async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running -= 1;
      return 'done';
    });
  const jobs = [job(), job(), job()];
  t.ok((await job().catch((error: unknown) => error)) instanceof GateBusyError, 'a fourth is refused while two run and one waits');
  t.same(gate.load, { active: 2, queued: 1 });
  releases.shift()!();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(gate.load, { active: 2, queued: 0 }, 'the waiter takes the freed slot');
  releases.splice(0).forEach((release) => release());
  t.same(await Promise.all(jobs), ['done', 'done', 'done']);
  t.equal(peak, 2);
  t.same(gate.load, { active: 0, queued: 0 });
});

t.test('WorkGate: one key cannot fill the queue, and keys are served in turn', async (t) => {
  const gate = new WorkGate(1, 10, 3);
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const job = (name: string) =>
    gate.run(name[0]!, async () => {
      started.push(name);
      await new Promise<void>((resolve) => releases.set(name, resolve));
    });
  const jobs = ['a1', 'a2', 'a3', 'a4'].map(job);
  t.ok((await job('a5').catch((error: unknown) => error)) instanceof GateBusyError, "a fifth job of one key is refused: its share of the queue is full");
  jobs.push(job('b1'));
  t.same(gate.load, { active: 1, queued: 4 }, 'another key still gets a place');
  for (const name of ['a1', 'a2', 'b1', 'a3', 'a4']) {
    await new Promise((resolve) => setImmediate(resolve));
    releases.get(name)!();
  }
  await Promise.all(jobs);
  t.same(started, ['a1', 'a2', 'b1', 'a3', 'a4'], 'b1 runs after the one a-job ahead of it, not after all of them');
});
