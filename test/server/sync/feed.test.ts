import t from 'tap';
import { recordTerm } from '../../../protocol/checksum.js';
import { send } from '../../helpers/catalog.js';
import { dialect } from '../../helpers/server.js';
import { E, FEED, P, createEvent, createPatrol, feed, fold, pullAll, recount, startFeedServer } from './feed-support.js';

t.test(`sync feed: snapshot, then the log; tombstones; checkpoints (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const lion = (await createEvent(s, token, { time: '2026-11-20T10:00:00+00:00' })).body.id;
  const fence = (await createEvent(s, token, { event_type: 'intrusion', time: '2026-11-19T10:00:00+00:00' })).body.id;
  const patrol = (await createPatrol(s, token)).body.id;
  const scopes = ['ev:cat:wildlife', 'pa:open', 'cat:*'];

  const first = await pullAll(s, token, scopes);
  const { mirror } = first;
  t.ok(mirror.has(`event:${lion}`), 'the wildlife event is served');
  t.notOk(mirror.has(`event:${fence}`), 'the security event is not');
  t.ok(mirror.has(`patrol:${patrol}`), 'the open patrol is served');
  t.same(first.last.granted, ['cat:choices', 'cat:event_categories', 'cat:event_types', 'cat:patrol_types', 'ev:cat:wildlife', 'pa:open']);
  t.same(first.last.denied, []);
  const put = mirror.get(`event:${lion}`)!;
  // identity: a compressed detail's ETag carries the coding (the feed's is the representation's own)
  const rest = await s.json(`${E}/${lion}`, { token, headers: { 'Accept-Encoding': 'identity' } });
  t.same(put.record, rest.body, 'the record is what the REST detail shows');
  t.equal(put.etag, rest.headers.get('etag'), 'with the detail ETag');
  t.same(put.scopes, ['ev:cat:wildlife']);
  const patrolRest = await s.json(`${P}/${patrol}`, { token });
  t.same(mirror.get(`patrol:${patrol}`)!.record, patrolRest.body);
  t.equal(patrolRest.headers.get('etag'), null, 'no patrol validators (rule 8)');
  t.equal(mirror.get(`patrol:${patrol}`)!.etag, null, 'so no patrol etag on the feed');
  t.equal(mirror.get(`patrol:${patrol}`)!.revision, patrolRest.body.revision, 'but its revision');
  const types = [...mirror.values()].filter((c) => c.kind === 'event_type').map((c) => (c.record as { value: string }).value).sort();
  t.same(types, ['intrusion', 'sighting'], 'catalog items ride the feed');
  t.ok((mirror.get([...mirror.keys()].find((k) => k.startsWith('event_type:'))!)!.record as { schema?: unknown }).schema, 'event types with their schema');

  t.ok(first.last.checkpoint, 'a quiet last page carries a checkpoint');
  for (const sum of first.last.checkpoint!.scopes) t.same({ count: sum.count, checksum: sum.checksum }, recount(mirror, sum.key), `checkpoint of ${sum.key} equals a recount`);
  t.equal(first.last.checkpoint!.cursor, first.cursor);

  await t.test('nothing new: one request, no changes, a checkpoint', async (t) => {
    const again = await feed(s, token, { cursor: first.cursor, scopes });
    t.equal(again.status, 200);
    t.same(again.body.changes, []);
    t.equal(again.body.has_more, false);
    t.ok(again.body.checkpoint);
  });

  await t.test('edits, a patrol leaving pa:open, an event moving out of its category, a delete', async (t) => {
    const patched = await s.json(`${E}/${lion}`, send('PATCH', { title: 'Lion pride' }, token));
    t.equal(patched.status, 200);
    const next = await pullAll(s, token, scopes, { cursor: first.cursor, mirror });
    t.equal((mirror.get(`event:${lion}`)!.record as { title: string }).title, 'Lion pride', 'the edit arrives');
    t.ok(mirror.get(`event:${lion}`)!.version > put.version, 'at a higher version');
    const done = await s.json(`${P}/${patrol}`, send('PATCH', { state: 'done' }, token));
    t.equal(done.status, 200);
    const moved = await s.json(`${E}/${lion}`, send('PATCH', { event_type: 'intrusion' }, token));
    t.equal(moved.status, 200);
    const doomed = (await createEvent(s, token)).body.id;
    const third = await pullAll(s, token, scopes, { cursor: next.cursor, mirror });
    t.ok(mirror.has(`event:${doomed}`));
    t.equal((await s.json(`${E}/${doomed}`, { method: 'DELETE', token })).status, 204);
    const changes: Array<{ kind: string; id: string; op: string }> = [];
    const fourth = await pullAll(s, token, scopes, { cursor: third.cursor, mirror });
    changes.push(...fourth.last.changes);
    t.notOk(mirror.has(`patrol:${patrol}`), 'the done patrol is removed');
    t.notOk(mirror.has(`event:${lion}`), 'the event that left ev:cat:wildlife is removed');
    t.notOk(mirror.has(`event:${doomed}`), 'the deleted event is gone');
    t.match(changes.find((c) => c.id === doomed), { op: 'delete' });
    const all = await pullAll(s, token, scopes, { cursor: null });
    t.same([...all.mirror.keys()].sort(), [...mirror.keys()].sort(), 'the fold equals a fresh snapshot');
    for (const sum of fourth.last.checkpoint!.scopes) t.same({ count: sum.count, checksum: sum.checksum }, recount(mirror, sum.key), `${sum.key} still verifies`);
  });

  await t.test('remove is served for a record that left the keys between two pages', async (t) => {
    const start = await pullAll(s, token, ['pa:open']);
    const open = (await createPatrol(s, token)).body.id;
    const mid = await pullAll(s, token, ['pa:open'], { cursor: start.cursor, mirror: start.mirror });
    t.ok(mid.mirror.has(`patrol:${open}`));
    await s.json(`${P}/${open}`, send('PATCH', { state: 'cancelled' }, token));
    const page = await feed(s, token, { cursor: mid.cursor, scopes: ['pa:open'] });
    t.match(page.body.changes, [{ kind: 'patrol', id: open, op: 'remove', record: null, scopes: [] }]);
    fold(mid.mirror, page.body.changes);
    t.same([...mid.mirror.keys()], []);
  });
});

t.test(`sync feed: bad requests, denied keys, grants (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const bad = async (body: unknown, field: string, code?: string) => {
    const response = await s.json(FEED, send('POST', body, token));
    t.equal(response.status, 400, `400 for ${JSON.stringify(body).slice(0, 80)}`);
    t.ok(response.body[field], `the issue is on ${field}`);
    if (code) t.equal(response.body[field][0].code, code);
  };
  await bad({ cursor: null, scopes: ['ev:nope'] }, 'scopes', 'invalid_scope_key');
  await bad({ cursor: null, scopes: ['ev:all'], limit: 0 }, 'limit');
  await bad({ cursor: null, scopes: ['ev:all'], limit: 1001 }, 'limit');
  await bad({ cursor: null, scopes: Array.from({ length: 401 }, () => 'ev:all') }, 'scopes');
  await bad({ cursor: 'not a cursor!', scopes: ['ev:all'] }, 'cursor', 'invalid_cursor');
  await bad({ cursor: Buffer.from('{"v":2}').toString('base64url'), scopes: ['ev:all'] }, 'cursor', 'invalid_cursor');
  await bad({ scopes: ['ev:all'] }, 'cursor');
  t.equal((await s.json(FEED, send('POST', { cursor: null, scopes: ['ev:all'] }, 'no-such-token'))).status, 401);

  const { admin } = s.server.runtime;
  await admin.createUser({ tenant: 'default', username: 'feed.viewer', password: 'Feed-Viewer-Pass-1', permissions: ['view_event', 'view_subject'] });
  const viewer = (await s.login('feed.viewer', 'Feed-Viewer-Pass-1')).access_token;
  const leader = await s.server.runtime.services.subjects.create(fx.tenantId, { name: 'Ranger', groups: [{ name: 'Team A', patrolLeaders: true }] });
  void leader;
  const page = await feed(s, viewer, { cursor: null, scopes: ['ev:all', 'pa:open', 'cat:*', 'su:*', 'su:group:00000000-0000-4000-8000-000000000000'] });
  t.equal(page.status, 200);
  t.same(page.body.granted, ['ev:all', 'su:nogroup'], 'su:* expands to the groups the user may view (none: no user_subject_groups)');
  t.same(page.body.denied.map((d: { key: string }) => d.key).sort(), ['cat:*', 'pa:open', 'su:group:00000000-0000-4000-8000-000000000000']);
  t.match(page.body.denied.find((d: { key: string }) => d.key === 'pa:open'), { reason: /view_patrol/ });
  await s.server.runtime.services.subjects.allowUserToViewGroup(fx.tenantId, (await s.server.runtime.store.repos.users.findByUsername('feed.viewer'))!.id, 'Team A');
  const later = await feed(s, viewer, { cursor: page.body.cursor, scopes: ['ev:all', 'pa:open', 'cat:*', 'su:*'] });
  t.equal(later.status, 410, 'a newly visible group changes the grants: without previous_scopes the cursor is refused (feed-rekey.test.ts continues it)');
  t.equal(later.body.sync[0].code, 'sync_scopes_changed');
  const fresh = await pullAll(s, viewer, ['su:*']);
  t.equal(fresh.last.granted.length, 2, 'su:nogroup and the visible group');
  t.equal([...fresh.mirror.values()].filter((c) => c.kind === 'subject').length, 1, 'the group\'s subject is served');
  const subject = [...fresh.mirror.values()].find((c) => c.kind === 'subject')!;
  const rest = await s.json(`/api/v1.0/subject/${subject.id}`, { token: viewer });
  t.same(subject.record, rest.body.data, 'the subject as its detail shows it');
});

t.test(`sync feed: OpenAPI lists the routes under sync (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const doc = (await fx.s.json('/api/openapi.json')).body;
  for (const path of ['changes', 'ranges', 'records']) t.ok(doc.paths[`/api/fieldops/v1/sync/${path}`]?.post, `POST ${path}`);
  t.ok(doc.paths['/api/fieldops/v1/sync/explain']?.get, 'GET explain');
  t.same(doc.paths['/api/fieldops/v1/sync/changes'].post.tags, ['sync']);
  t.ok(doc.tags.some((tag: { name: string }) => tag.name === 'sync'));
  void recordTerm;
});

t.test(`sync feed: the earthranger profile keeps the feed's wire; records as the REST payload (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s } = fx;
  await s.server.runtime.admin.setClientProfile('fieldops-cli', 'earthranger');
  const token = (await s.login()).access_token;
  const id = (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).body.data.id;
  const page = await feed(s, token, { cursor: null, scopes: ['ev:all'] });
  t.equal(page.status, 200);
  t.notOk('data' in page.body, 'not wrapped in {data, status}');
  const change = page.body.changes.find((c: { id: string }) => c.id === id)!;
  t.same(change.record, (await s.json(`${E}/${id}`, { token })).body.data, 'the record is the detail\'s payload');
});
