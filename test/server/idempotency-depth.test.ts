/**
 * Review findings on keyed requests: a body nested 20,000 deep with an Idempotency-Key was a 500
 * (the request hash recursed before anything checked the depth), and a key reused with another
 * base revision was replayed instead of refused.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { startTestServer } from '../helpers/server.js';
import { ONE, createEvent, createSightingType } from './merge/merge-support.js';

t.test('a deep body is a 400 with or without a key', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const depth = 20_000;
  const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  for (const key of [null, 'k-deep-1']) {
    const response = await s.request('/api/v1.0/activity/events', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: `{"event_type":"other","title":"x","event_details":${deep}}`,
    });
    t.equal(response.status, 400, `key ${key}: 400`);
    const body = (await response.json()) as { status?: { code?: number } };
    t.equal(body.status?.code, 400, 'the contract\'s error body');
  }
});

t.test('the same key with another base revision is another request (422)', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await createSightingType(s, token);
  const { id, revision } = await createEvent(s, token);
  const keyed = (base: number) => {
    const init = send('PATCH', { title: 'same body' }, token);
    return { ...init, headers: { ...(init.headers as Record<string, string>), 'Idempotency-Key': 'k-base-1', 'Fieldops-Base-Revision': String(base) } };
  };
  t.equal((await s.request(`${ONE}/${id}`, keyed(revision))).status, 200);
  const repeat = await s.request(`${ONE}/${id}`, keyed(revision));
  t.equal(repeat.headers.get('idempotent-replayed'), 'true', 'the same request again is a replay');
  const other = await s.request(`${ONE}/${id}`, keyed(revision + 1));
  t.equal(other.status, 422, 'another base under the same key is refused');
});
