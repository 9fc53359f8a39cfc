import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { TYPES, createType, send } from '../helpers/catalog.js';

t.test(`patrol types: conditional GET rules of the specification (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  const foot = await createType(s, token, { value: 'foot', display: 'Foot' });
  await createType(s, token, { value: 'vehicle', display: 'Vehicle' });
  const get = (path: string, headers: Record<string, string> = {}, as = token) => s.request(path, { token: as, headers });

  await t.test('rule 1: list and detail offer ETag + If-None-Match and Last-Modified + If-Modified-Since', async (t) => {
    for (const path of [TYPES, `${TYPES}/foot`, `${TYPES}/${foot.id}`]) {
      const first = await get(path);
      t.equal(first.status, 200, path);
      const etag = first.headers.get('etag')!;
      const lastModified = first.headers.get('last-modified')!;
      t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
      t.ok(lastModified, 'Last-Modified');
      t.equal(first.headers.get('cache-control'), 'private, no-cache');
      t.equal((await get(path, { 'If-None-Match': etag })).status, 304, 'If-None-Match');
      t.equal((await get(path, { 'If-Modified-Since': lastModified })).status, 304, 'If-Modified-Since');
      t.equal((await get(path, { 'If-Modified-Since': new Date(Date.parse(lastModified) - 1000).toUTCString() })).status, 200, 'older date: modified');
      t.equal((await get(path, { 'If-None-Match': `W/${etag}` })).status, 304, 'weak comparison');
      t.equal((await get(path, { 'If-None-Match': `"nope", ${etag}` })).status, 304, 'a list with a match');
      t.equal((await get(path, { 'If-None-Match': '*' })).status, 304, '* matches a current representation');
      t.equal((await get(path, { 'If-Modified-Since': 'not a date' })).status, 200, 'an unparsable date is ignored');
    }
  });

  await t.test('rule 2: tracked-by offers ETag + If-None-Match only', async (t) => {
    const first = await get('/api/v1.0/activity/patrols/trackedby');
    t.equal(first.status, 200);
    t.ok(first.headers.get('etag'));
    t.equal(first.headers.get('last-modified'), null);
    t.equal((await get('/api/v1.0/activity/patrols/trackedby', { 'If-None-Match': first.headers.get('etag')! })).status, 304);
    t.equal((await get('/api/v1.0/activity/patrols/trackedby', { 'If-Modified-Since': new Date(Date.now() + 86400000).toUTCString() })).status, 200, 'If-Modified-Since is not evaluated');
  });

  await t.test('rule 3: when both are sent, only If-None-Match is evaluated', async (t) => {
    const first = await get(TYPES);
    const future = new Date(Date.now() + 86400000).toUTCString();
    const past = 'Mon, 01 Jan 2001 00:00:00 GMT';
    t.equal((await get(TYPES, { 'If-None-Match': '"stale"', 'If-Modified-Since': future })).status, 200, 'a non-matching tag wins over a fresh date');
    t.equal((await get(TYPES, { 'If-None-Match': first.headers.get('etag')!, 'If-Modified-Since': past })).status, 304, 'a matching tag wins over an old date');
  });

  await t.test('rule 4: 304 has no body and repeats the ETag; otherwise 200 with a new ETag', async (t) => {
    const first = await get(TYPES);
    const etag = first.headers.get('etag')!;
    const notModified = await get(TYPES, { 'If-None-Match': etag });
    t.equal(notModified.status, 304);
    t.equal(await notModified.text(), '');
    t.equal(notModified.headers.get('etag'), etag);
    await s.json(`${TYPES}/foot`, send('PATCH', { display: 'Foot patrol' }, token));
    const changed = await get(TYPES, { 'If-None-Match': etag });
    t.equal(changed.status, 200);
    t.not(changed.headers.get('etag'), etag);
    t.equal(((await changed.json()) as unknown[]).length, 2);
  });

  await t.test('rule 5: each distinct combination of query parameters has its own ETag; equivalent spellings share one', async (t) => {
    const etag = async (query: string) => (await get(`${TYPES}${query}`)).headers.get('etag');
    const base = await etag('');
    const inactive = await etag('?include_inactive=true');
    const schema = await etag('?include_schema=true');
    const both = await etag('?include_inactive=true&include_schema=true');
    const since = await etag('?updated_since=2026-01-01T00:00:00%2B00:00');
    t.equal(new Set([base, inactive, schema, both, since]).size, 5, 'five combinations, five ETags');
    t.equal(await etag('?include_schema=True&include_inactive=1'), both, 'order and spelling do not matter');
    t.equal(await etag('?include_inactive=false'), base, 'an explicit default is the default');
    t.equal(await etag('?updated_since=2026-01-01T02:00:00%2B02:00'), since, 'the same instant in another offset');
    t.equal((await get(`${TYPES}?include_inactive=maybe`)).status, 400, 'an unknown boolean is 400');
    t.equal((await get(`${TYPES}?updated_since=2026-01-01T00:00:00`)).status, 400, 'a date without offset is 400');
  });

  await t.test('include_schema ETags cover schema content', async (t) => {
    const plain = (await get(`${TYPES}?include_schema=true`)).headers.get('etag');
    await s.json(`${TYPES}/vehicle`, send('PATCH', { schema: { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }, ui: {} } }, token));
    t.not((await get(`${TYPES}?include_schema=true`)).headers.get('etag'), plain);
  });

  await t.test('rule 6: patrol type ETags are identical for every user and profile; tracked-by is per identity', async (t) => {
    await admin.createUser({ tenant: 'default', username: 'viewer1', password: 'Hornbill-Sky-Pass-1', permissions: ['view_patroltype'] });
    const profile = await admin.createUser({ tenant: 'default', username: 'profile1', password: 'Hornbill-Sky-Pass-2', permissions: ['view_patrol'] });
    await admin.addProfile('viewer1', 'profile1');
    const viewer = (await s.login('viewer1', 'Hornbill-Sky-Pass-1')).access_token;
    for (const path of [TYPES, `${TYPES}/foot`, `${TYPES}?include_schema=true`]) {
      const a = (await get(path)).headers.get('etag');
      const b = (await get(path, {}, viewer)).headers.get('etag');
      const c = (await get(path, { 'User-Profile': profile.id }, viewer)).headers.get('etag');
      t.equal(a, b, `${path}: admin and viewer`);
      t.equal(b, c, `${path}: with and without a profile`);
    }
    const tracked = '/api/v1.0/activity/patrols/trackedby';
    const adminTag = (await get(tracked)).headers.get('etag');
    const viewerTag = (await get(tracked, {}, viewer)).headers.get('etag');
    const profileTag = (await get(tracked, { 'User-Profile': profile.id }, viewer)).headers.get('etag');
    t.equal(new Set([adminTag, viewerTag, profileTag]).size, 3, 'salted with the user and the User-Profile header');
    t.equal((await get(tracked, { 'If-None-Match': adminTag! }, viewer)).status, 200, "another user's tag does not match");
  });

  await t.test('rule 7: list Last-Modified is the newest updated_at of all types, deactivated included', async (t) => {
    const patched = await s.json(`${TYPES}/foot`, send('PATCH', { is_active: false }, token));
    const newest = Date.parse(patched.body.updated_at);
    const list = await get(TYPES);
    t.equal(Date.parse(list.headers.get('last-modified')!), Math.floor(newest / 1000) * 1000, 'one-second resolution');
    const body = (await list.json()) as Array<{ value: string }>;
    t.notOk(body.some((type: { value: string }) => type.value === 'foot'), 'the deactivated type is hidden...');
    t.equal((await get(`${TYPES}?include_inactive=true`)).status, 200);
    await s.json(`${TYPES}/foot`, send('PATCH', { is_active: true }, token));
  });

  await t.test('rule 8: no validators on the schema list, the single schema, the updates history', async (t) => {
    for (const path of [`${TYPES}/schemas`, `${TYPES}/foot/schema`, `${TYPES}/foot/updates`]) {
      const response = await get(path);
      t.equal(response.status, 200, path);
      t.equal(response.headers.get('etag'), null, `${path}: no ETag`);
      t.equal(response.headers.get('last-modified'), null, `${path}: no Last-Modified`);
      t.equal((await get(path, { 'If-None-Match': '*' })).status, 200, `${path}: preconditions ignored`);
    }
  });

  await t.test('a write that changes nothing changes no validator', async (t) => {
    const before = await get(`${TYPES}/foot`);
    const list = await get(TYPES);
    const same = await s.json(`${TYPES}/foot`, send('PATCH', { display: 'Foot patrol', default_priority: 0 }, token));
    t.equal(same.status, 200);
    const after = await get(`${TYPES}/foot`);
    t.equal(after.headers.get('etag'), before.headers.get('etag'));
    t.equal(after.headers.get('last-modified'), before.headers.get('last-modified'));
    t.equal((await get(TYPES)).headers.get('etag'), list.headers.get('etag'));
    const history = await s.json(`${TYPES}/foot/updates`, { token });
    t.notOk(history.body.results.some((entry: { updated_fields?: string[] }) => entry.updated_fields && entry.updated_fields.length === 0), 'no empty history entry');
  });

  await t.test('validators are per tenant', async (t) => {
    await admin.createTenant('south');
    await admin.createUser({ tenant: 'south', username: 'south.admin', password: 'Southern-Cross-Pass-1', superuser: true });
    const south = (await s.login('south.admin', 'Southern-Cross-Pass-1')).access_token;
    const own = await get(TYPES);
    const other = await get(TYPES, {}, south);
    t.not(other.headers.get('etag'), own.headers.get('etag'));
    t.equal((await get(TYPES, { 'If-None-Match': own.headers.get('etag')! }, south)).status, 200, "another tenant's tag never matches");
    t.same(await other.json(), []);
    t.equal((await get(`${TYPES}/foot`, {}, south)).status, 404, "another tenant's type is not found");
    t.equal((await get(`${TYPES}/${foot.id}`, {}, south)).status, 404);
  });
});
