import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { TYPES, createType } from '../helpers/catalog.js';

t.test(`the revalidation fast path answers exactly as the full path would (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await createType(s, token, { value: 'fast', display: 'Fast' });
  for (const path of [TYPES, `${TYPES}/`, `${TYPES}?include_schema=True&include_inactive=1`, '/api/v2.0/activity/eventtypes']) {
    const full = await s.request(path, { token });
    const etag = full.headers.get('etag')!;
    const fast = await s.request(path, { token, headers: { 'If-None-Match': etag, 'X-Request-Id': 'fast-path-1' } });
    t.equal(fast.status, 304, `${path}: 304`);
    t.equal(fast.headers.get('etag'), etag, 'the same ETag');
    t.equal(fast.headers.get('last-modified'), full.headers.get('last-modified'), 'the same Last-Modified');
    t.equal(fast.headers.get('cache-control'), 'private, no-cache');
    t.equal(fast.headers.get('x-request-id'), 'fast-path-1', 'the request id is echoed');
    t.equal(await fast.text(), '');
  }
  t.match(s.logs(), /"requestId":"fast-path-1".*"status":304.*"fast":true/, 'logged like any request');
  const stale = await s.request(TYPES, { token, headers: { 'If-None-Match': '"stale"' } });
  t.equal(stale.status, 200, 'a stale tag falls through to the full answer');
  t.ok(((await stale.json()) as unknown[]).length === 1);
  const etag = (await s.request(TYPES, { token })).headers.get('etag')!;
  t.equal((await s.request(TYPES, { token: 'not-a-token', headers: { 'If-None-Match': etag } })).status, 401, 'bad credentials: the full path answers 401');
  t.equal((await s.request(`${TYPES}?include_schema=perhaps`, { token, headers: { 'If-None-Match': etag } })).status, 400, 'a bad query: 400');
  await s.server.runtime.admin.createUser({ tenant: 'default', username: 'fast.nobody', password: 'Caracal-Pass-11' });
  const nobody = (await s.login('fast.nobody', 'Caracal-Pass-11')).access_token;
  t.equal((await s.request(TYPES, { token: nobody, headers: { 'If-None-Match': etag } })).status, 403, 'no permission: 403, never a 304');
});
