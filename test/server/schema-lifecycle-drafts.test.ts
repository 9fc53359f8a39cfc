import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { sampleSchema, send } from '../helpers/catalog.js';
import { pullAll } from './sync/feed-support.js';
import { V2, detailOf, historyOf, sendWith } from './schema-lifecycle-support.js';

// Issue 28 part 5 (server side): drafts are invisible until published; publish and discard.
const SCOPES = ['cat:event_types'];

t.test(`schema drafts and publish (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_AUTH_CACHE_MS: '0' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  t.equal((await s.json(V2, send('POST', { value: 'dr', display: 'Drafted', schema: sampleSchema('notes') }, token))).status, 201);
  const original = await detailOf(s, token, 'dr');
  const draftSchema = sampleSchema('extra');
  const first = await pullAll(s, token, SCOPES);

  await t.test('a draft is validated like a schema write', async (t) => {
    const bad = await s.json(`${V2}/dr/draft`, send('PUT', { schema: { json: { type: 'object', properties: { x: { type: 'nonsense' } } }, ui: {} } }, token));
    t.equal(bad.status, 400);
    t.ok(Array.isArray(bad.body.schema), 'issues under `schema`');
    t.equal((await s.json(`${V2}/dr/draft`, send('PUT', { schema: draftSchema, display: 'x' }, token))).status, 400, 'only `schema`');
    t.equal((await s.json(`${V2}/dr/draft`, send('PUT', {}, token))).status, 400, 'schema required');
    t.equal((await s.json(`${V2}/dr/draft`, { token })).status, 404, 'nothing stored');
  });

  await t.test('a stored draft is invisible to list, detail, history and the sync feed', async (t) => {
    const put = await s.json(`${V2}/dr/draft`, send('PUT', { schema: draftSchema }, token));
    t.equal(put.status, 200, JSON.stringify(put.body));
    t.match(put.body.data, { event_type: 'dr', based_on_revision: 1, updated_by: { username: 'admin' } });
    t.same(put.body.data.schema.json.properties, draftSchema.json.properties, 'the normalised draft');
    t.same((await s.json(`${V2}/dr/draft`, { token })).body, put.body, 'GET answers it');
    const detail = await detailOf(s, token, 'dr');
    t.same(detail.body.schema, original.body.schema, 'the detail still shows the published schema');
    t.equal(detail.etag, original.etag, 'with the same ETag');
    const list = await s.json(`${V2}?include_schema=true`, { token });
    t.same(list.body.find((e: { value: string }) => e.value === 'dr').schema, original.body.schema, 'the list too');
    t.same((await s.json(`${V2}/dr/schema`, { token })).body, original.body.schema, 'and the schema route');
    t.equal((await historyOf(s, token, 'dr')).count, 1, 'no history entry');
    const after = await pullAll(s, token, SCOPES, { cursor: first.cursor });
    t.same(after.received.filter((c) => c.kind === 'event_type'), [], 'no event type change on the sync feed');
  });

  await t.test('publish: 412 stale If-Match; makes it current, removes the draft, moves the feed', async (t) => {
    t.equal((await s.json(`${V2}/dr/publish`, sendWith('POST', {}, token, { 'If-Match': '"stale"' }))).status, 412);
    t.equal((await s.json(`${V2}/dr/publish`, send('POST', { allow_breaking: [{ rule: 'breaking/nope', reason: 'x' }] }, token))).status, 400, 'unknown rule');
    const published = await s.json(`${V2}/dr/publish`, sendWith('POST', {}, token, { 'If-Match': original.etag }));
    t.equal(published.status, 200, JSON.stringify(published.body));
    t.same(published.body.schema.json.properties, draftSchema.json.properties);
    const detail = await detailOf(s, token, 'dr');
    t.same(detail.body.schema, published.body.schema, 'the detail shows it');
    t.not(detail.etag, original.etag);
    t.equal((await s.json(`${V2}/dr/draft`, { token })).status, 404, 'the draft is gone');
    const history = await historyOf(s, token, 'dr');
    t.equal(history.count, 2);
    t.match(history.results[0]!.note, /^Published from a draft based on revision 1\./);
    const after = await pullAll(s, token, SCOPES, { cursor: first.cursor });
    const change = after.received.find((c) => c.kind === 'event_type' && (c.record as { value: string }).value === 'dr');
    t.ok(change, 'the feed carries the published type');
    t.same((change!.record as { schema: { json: { properties: unknown } } }).schema.json.properties, draftSchema.json.properties);
    t.equal((await s.json(`${V2}/dr/publish`, send('POST', {}, token))).status, 404, 'nothing left to publish');
  });

  await t.test('publish refuses a draft the type moved past, unless rebase=true', async (t) => {
    t.equal((await s.json(`${V2}/dr/draft`, send('PUT', { schema: sampleSchema('later') }, token))).status, 200);
    t.equal((await s.json(`${V2}/dr`, send('PATCH', { display: 'Moved on' }, token))).status, 200);
    const refused = await s.json(`${V2}/dr/publish`, send('POST', {}, token));
    t.equal(refused.status, 412);
    t.match(refused.body.status.detail, /rebase=true/);
    const rebased = await s.json(`${V2}/dr/publish?rebase=true`, send('POST', {}, token));
    t.equal(rebased.status, 200);
    t.ok('later' in rebased.body.schema.json.properties);
    t.equal(rebased.body.display, 'Moved on', 'only the schema is published');
  });

  await t.test('discard', async (t) => {
    t.equal((await s.json(`${V2}/dr/draft`, send('PUT', { schema: draftSchema }, token))).status, 200);
    const before = await historyOf(s, token, 'dr');
    t.equal((await s.request(`${V2}/dr/draft`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.json(`${V2}/dr/draft`, { token })).status, 404);
    t.equal((await s.json(`${V2}/dr/draft`, { method: 'DELETE', token })).status, 404, 'twice: 404');
    t.equal((await historyOf(s, token, 'dr')).count, before.count, 'no history');
  });

  await t.test('breaking changes: 409 with findings; published when allowed, with the reason in the history', async (t) => {
    t.equal((await s.json(V2, send('POST', { value: 'br', display: 'Breakable', schema: sampleSchema('notes') }, token))).status, 201);
    const event = await s.json('/api/v1.0/activity/events', send('POST', { event_type: 'br', event_details: { notes: 'seen' } }, token));
    t.equal(event.status, 201, JSON.stringify(event.body));
    t.equal((await s.json(`${V2}/br/draft`, send('PUT', { schema: sampleSchema('other') }, token))).status, 200, 'a draft that drops `notes`');
    const refused = await s.json(`${V2}/br/publish`, send('POST', {}, token));
    // Real findings need the compat engine and the usage counts (issue 28's other helpers).
    t.equal(refused.status, 409, JSON.stringify(refused.body));
    t.equal(refused.body.breaking_changes[0].code, 'breaking_changes');
    t.ok(refused.body.findings.some((f: { rule: string; field?: string }) => f.rule === 'breaking/removed-field' && f.field === 'notes'), 'the removed field is a finding');
    t.equal((await s.json(`${V2}/br/draft`, { token })).status, 200, 'the draft stays');
    t.equal((await historyOf(s, token, 'br')).count, 1, 'nothing written');
    const allowed = await s.json(`${V2}/br/publish`, send('POST', { allow_breaking: [{ rule: 'breaking/removed-field', reason: 'notes moved to remarks' }] }, token));
    t.equal(allowed.status, 200);
    t.match((await historyOf(s, token, 'br')).results[0]!.note, /breaking\/removed-field \(notes\).*notes moved to remarks/);
  });

  await t.test('tenant isolation and permissions', async (t) => {
    const admin = s.server.runtime.admin;
    await admin.createTenant('lc-other');
    await admin.createUser({ tenant: 'lc-other', username: 'lc.outsider', password: 'Oryx-Pass-Phrase-1', permissions: ['view_eventtype', 'change_eventtype'] });
    await admin.createUser({ tenant: 'default', username: 'lc.viewer', password: 'Oryx-Pass-Phrase-2', permissions: ['view_eventtype'] });
    await admin.createUser({ tenant: 'default', username: 'lc.nobody', password: 'Oryx-Pass-Phrase-3', permissions: [] });
    const outsider = (await s.login('lc.outsider', 'Oryx-Pass-Phrase-1')).access_token;
    const viewer = (await s.login('lc.viewer', 'Oryx-Pass-Phrase-2')).access_token;
    const nobody = (await s.login('lc.nobody', 'Oryx-Pass-Phrase-3')).access_token;
    t.equal((await s.json(`${V2}/dr/draft`, send('PUT', { schema: draftSchema }, token))).status, 200);
    const etag = (await detailOf(s, token, 'dr')).etag;
    const calls = (who: string) => [
      ['as_of', s.json(`${V2}/dr/as_of?revision=1`, { token: who })],
      ['restore', s.json(`${V2}/dr/restore`, sendWith('POST', { revision: 1 }, who, { 'If-Match': etag }))],
      ['draft get', s.json(`${V2}/dr/draft`, { token: who })],
      ['draft put', s.json(`${V2}/dr/draft`, send('PUT', { schema: draftSchema }, who))],
      ['publish', s.json(`${V2}/dr/publish`, send('POST', {}, who))],
      ['discard', s.json(`${V2}/dr/draft`, { method: 'DELETE', token: who })],
    ] as const;
    for (const [name, pending] of calls(outsider)) t.equal((await pending).status, 404, `another tenant: ${name} is 404`);
    for (const [name, pending] of calls(viewer)) t.equal((await pending).status, name === 'as_of' ? 200 : 403, `view only: ${name}`);
    t.equal((await s.json(`${V2}/dr/as_of?revision=1`, { token: nobody })).status, 403, 'without view: as_of is 403');
    t.equal((await s.json(`${V2}/dr/draft`, { token })).status, 200, 'the draft survived them all');
    t.equal((await detailOf(s, token, 'dr')).etag, etag, 'and the type is untouched');
  });
});
