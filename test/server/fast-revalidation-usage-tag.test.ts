/**
 * The revalidation fast path and the earthranger profile's `has_events_assigned` (v2 event
 * types): the usage is part of that profile's list tag, so a tag the route would not produce for
 * the caller (the fieldops profile's, which an earthranger client held before the field existed)
 * is never answered 304 there; the fieldops profile keeps its fast 304 (both databases).
 */
import t from 'tap';
import { ADMIN_PASSWORD, dialect, jsonBody, startTestServer } from '../helpers/server.js';

const V2 = '/api/v2.0/activity/eventtypes';

t.test(`a fieldops tag is not a 304 in the earthranger profile (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  t.equal((await s.json(V2, jsonBody({ value: 'usage_tag', display: 'Usage tag' }, { method: 'POST', token }))).status, 201);
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'das_web_client', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'das_web_client', username: 'admin', password: ADMIN_PASSWORD }) });
  const er = String(((await response.json()) as { access_token: string }).access_token);

  const fieldopsTag = (await s.request(V2, { token })).headers.get('etag')!;
  t.ok(fieldopsTag, 'the fieldops profile has a tag');
  const fast = await s.request(V2, { token, headers: { 'If-None-Match': fieldopsTag, 'X-Request-Id': 'usage-fieldops' } });
  t.equal(fast.status, 304, 'the fieldops profile: 304');
  t.match(s.logs(), /"requestId":"usage-fieldops".*"status":304.*"fast":true/, 'answered by the fast path');

  const stale = await s.json(V2, { token: er, headers: { 'If-None-Match': fieldopsTag, 'X-Request-Id': 'usage-er-stale' } });
  t.equal(stale.status, 200, 'the earthranger profile with the fieldops tag: the full answer, not 304');
  const items = stale.body.data as Array<Record<string, unknown>>;
  t.match(items.find((item) => item.value === 'usage_tag'), { has_events_assigned: false }, 'with has_events_assigned');
  const erTag = stale.headers.get('etag')!;
  t.not(erTag, fieldopsTag, 'the earthranger tag carries the usage');

  const own = await s.request(V2, { token: er, headers: { 'If-None-Match': erTag, 'X-Request-Id': 'usage-er-own' } });
  t.equal(own.status, 304, 'its own tag: 304');
  t.equal(own.headers.get('etag'), erTag);
});
