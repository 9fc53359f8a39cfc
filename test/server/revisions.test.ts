/**
 * Revisions (issue 26 §2), on both databases: every event, patrol, segment and subject carries a
 * monotonic `revision` in its fieldops bodies (details, lists, write answers) and on the feed's
 * change; the earthranger profile shows the original's fields exactly (no `revision`). Patrols
 * carry no validators (rule 8), yet an older CLI's `If-Match` is still checked. The
 * `Fieldops-Base-Revision` header is a positive integer or a 400.
 */
import t from 'tap';
import type { Change } from '../../protocol/sync.js';
import { patrolEtag } from '../../server/domain/patrols/etag.js';
import { sampleSchema, send } from '../helpers/catalog.js';
import { ADMIN_PASSWORD, dialect, type TestServer } from '../helpers/server.js';
import { GPS, observation, post } from './sensors-support.js';
import { E, P, feed, startFeedServer } from './sync/feed-support.js';

const ONE = '/api/v1.0/activity/event';
const SEGMENTS = `${P}/segments`;
const HEADER = 'Fieldops-Base-Revision';

type Json = Record<string, any>;

/** A password-grant token of the admin through an earthranger-profile client. */
async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_revisions', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(`${s.url}/oauth2/token/`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', client_id: 'er_revisions', username: 'admin', password: ADMIN_PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`earthranger login: ${response.status}`);
  return String(((await response.json()) as Json).access_token);
}

/** A JSON write with extra headers. */
function write(method: string, body: unknown, token: string, headers: Record<string, string> = {}): RequestInit & { token: string } {
  return { method, token, headers: { 'Content-Type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** The keys of a fieldops body without `revision`: what the earthranger payload must show. */
// `revision` and (events, issue 28) `schema_revision` are fieldops-profile only.
const withoutRevision = (body: Json) => Object.keys(body).filter((key) => key !== 'revision' && key !== 'schema_revision').sort();

t.test(`revisions in bodies and on the feed; rule 8; Fieldops-Base-Revision (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token, tenantId } = fx;
  const er = await earthRangerToken(s);
  const { services, store } = s.server.runtime;
  const leader = await services.subjects.create(tenantId, { name: 'Amani', groups: [{ name: 'Leaders', patrolLeaders: true }] });

  await t.test('events: 1 on create, +1 per change (a note too), in detail, list and write answers', async (t) => {
    const created = await s.json(E, send('POST', { event_type: 'sighting', title: 'Lion', event_details: {} }, token));
    t.equal(created.status, 201);
    t.equal(created.body.revision, 1, 'the create answer carries revision 1');
    const id = created.body.id as string;
    const detail = await s.json(`${ONE}/${id}`, { token });
    t.equal(detail.body.revision, 1);
    t.ok(detail.headers.get('etag'), 'events keep their ETag');
    const patched = await s.json(`${ONE}/${id}`, send('PATCH', { title: 'Lion pride' }, token));
    t.equal(patched.body.revision, 2, 'the update answer carries the new revision');
    t.equal((await s.json(`${ONE}/${id}/notes`, send('POST', { text: 'Three cubs' }, token))).status, 201);
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.revision, 3, 'a note moves the event\'s revision');
    const list = await s.json(E, { token });
    t.equal(list.body.results.find((e: Json) => e.id === id).revision, 3, 'lists carry it');

    const erDetail = await s.json(`${ONE}/${id}`, { token: er });
    t.notOk('revision' in erDetail.body.data, 'the earthranger detail has no revision');
    t.same(Object.keys(erDetail.body.data).sort(), withoutRevision(detail.body), 'and every other field');
    const erList = await s.json(E, { token: er });
    t.ok(erList.body.data.results.length > 0);
    t.ok(erList.body.data.results.every((e: Json) => !('revision' in e)), 'nor the earthranger list');
    const erPatch = await s.json(`${ONE}/${id}`, send('PATCH', { title: 'Pride' }, er));
    t.equal(erPatch.status, 200);
    t.notOk('revision' in erPatch.body.data, 'nor an earthranger write answer');
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.revision, 4);
  });

  await t.test('an event detail key named revision is the tenant\'s data, kept in both profiles', async (t) => {
    const type = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'counted', display: 'Counted', category: 'wildlife', schema: sampleSchema('revision') }, token));
    t.equal(type.status, 201, JSON.stringify(type.body));
    const created = await s.json(E, send('POST', { event_type: 'counted', event_details: { revision: 'seven' } }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    const erDetail = await s.json(`${ONE}/${created.body.id}`, { token: er });
    t.notOk('revision' in erDetail.body.data);
    t.same(erDetail.body.data.event_details, { revision: 'seven' });
  });

  const segmentId = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  const otherSegment = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e';
  let patrolId = '';

  await t.test('patrols and segments: one counter per patrol; a segment takes its patrol\'s revision when it changes', async (t) => {
    const created = await s.json(P, send('POST', {
      title: 'North',
      patrol_segments: [
        { id: segmentId, patrol_type: 'foot', leader: { content_type: 'observations.subject', id: leader.id }, time_range: { start_time: '2026-11-20T09:00:00+00:00' } },
        { id: otherSegment, patrol_type: 'foot' },
      ],
    }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    patrolId = created.body.id;
    t.equal(created.body.revision, 1, 'a create is revision 1');
    t.same(created.body.patrol_segments.map((x: Json) => x.revision), [1, 1], 'its segments too');
    t.equal(created.body.patrol_segments[0].leader.revision, leader.revision, 'the nested leader subject carries its own');

    const titled = await s.json(`${P}/${patrolId}`, send('PATCH', { title: 'North ridge' }, token));
    t.equal(titled.status, 200);
    t.equal(titled.body.revision, 2, 'a field of the patrol moves it');
    t.same(titled.body.patrol_segments.map((x: Json) => x.revision), [1, 1], 'segments that did not change keep theirs');

    const nested = await s.json(`${P}/${patrolId}`, send('PATCH', { patrol_segments: [{ id: segmentId, scheduled_end: '2026-11-20T18:00:00+00:00' }] }, token));
    t.equal(nested.status, 200, JSON.stringify(nested.body));
    t.equal(nested.body.revision, 3, 'a segment changed through its patrol moves the patrol');
    const byId = (body: Json, id: string) => body.patrol_segments.find((x: Json) => x.id === id);
    t.equal(byId(nested.body, segmentId).revision, 3, 'and the segment takes the patrol\'s new revision');
    t.equal(byId(nested.body, otherSegment).revision, 1, 'the other segment keeps its own');

    const alone = await s.json(`${SEGMENTS}/${otherSegment}`, send('PATCH', { scheduled_end: '2026-11-20T19:00:00+00:00' }, token));
    t.equal(alone.status, 200, JSON.stringify(alone.body));
    const patrol = await s.json(`${P}/${patrolId}`, { token });
    t.equal(patrol.body.revision, 4, 'a standalone segment update moves its patrol');
    t.equal(alone.body.revision, 4, 'the segment answer carries the patrol\'s revision');
    t.equal(byId(patrol.body, otherSegment).revision, 4);
    t.equal((await s.json(`${SEGMENTS}/${otherSegment}`, { token })).body.revision, 4, 'the segment detail');
    t.equal((await s.json(SEGMENTS, { token })).body.results.find((x: Json) => x.id === otherSegment).revision, 4, 'the segment list');
    t.equal((await s.json(P, { token })).body.results.find((x: Json) => x.id === patrolId).revision, 4, 'the patrol list');

    t.equal((await s.json(`${P}/${patrolId}/notes`, send('POST', { text: 'Fence cut' }, token))).status, 201);
    t.equal((await s.json(`${P}/${patrolId}`, { token })).body.revision, 4, 'a note leaves the revision alone (never merged)');
  });

  await t.test('the earthranger profile shows patrols and segments without revisions, nested ones included', async (t) => {
    const fieldops = (await s.json(`${P}/${patrolId}`, { token })).body;
    const erPatrol = (await s.json(`${P}/${patrolId}`, { token: er })).body.data;
    t.notOk('revision' in erPatrol);
    t.same(Object.keys(erPatrol).sort(), withoutRevision(fieldops));
    for (const segment of erPatrol.patrol_segments) t.notOk('revision' in segment, `nested segment ${segment.id}`);
    const erLeader = erPatrol.patrol_segments.find((x: Json) => x.id === segmentId).leader;
    t.equal(erLeader.id, leader.id);
    t.notOk('revision' in erLeader, 'nor the nested leader');
    const erSegment = (await s.json(`${SEGMENTS}/${segmentId}`, { token: er })).body.data;
    t.notOk('revision' in erSegment);
    t.notOk('revision' in erSegment.leader);
    const erList = (await s.json(P, { token: er })).body.data.results;
    t.ok(erList.every((p: Json) => !('revision' in p) && p.patrol_segments.every((x: Json) => !('revision' in x))), 'the patrol list');
    t.ok((await s.json(SEGMENTS, { token: er })).body.data.results.every((x: Json) => !('revision' in x)), 'the segment list');
    const erWrite = await s.json(`${P}/${patrolId}`, send('PATCH', { objective: 'Fence line' }, er));
    t.equal(erWrite.status, 200);
    t.notOk('revision' in erWrite.body.data, 'an earthranger write answer');
    t.notOk(erWrite.body.data.patrol_segments.some((x: Json) => 'revision' in x));
  });

  await t.test('rule 8: no ETag and no Last-Modified on patrol detail, create and update answers', async (t) => {
    const none = (response: { headers: Headers }, what: string) => {
      t.equal(response.headers.get('etag'), null, `${what}: no ETag`);
      t.equal(response.headers.get('last-modified'), null, `${what}: no Last-Modified`);
    };
    const created = await s.json(P, send('POST', { title: 'Rule eight', patrol_segments: [{ patrol_type: 'foot' }] }, token));
    t.equal(created.status, 201);
    none(created, 'POST');
    none(await s.json(`${P}/${created.body.id}`, { token }), 'GET');
    none(await s.json(`${P}/${created.body.id}`, { token: er }), 'GET (earthranger)');
    none(await s.json(`${P}/${created.body.id}`, send('PATCH', { title: 'Rule 8' }, token)), 'PATCH');
    none(await s.json(`${P}/${created.body.id}`, send('PUT', { title: 'Rule VIII' }, token)), 'PUT');
    none(await s.json(`${SEGMENTS}/${created.body.patrol_segments[0].id}`, { token }), 'segment GET');
    const revalidated = await s.json(`${P}/${created.body.id}`, { token, headers: { 'If-None-Match': '*' } });
    t.equal(revalidated.status, 200, 'never a 304');
  });

  await t.test('If-Match on a patrol PATCH/PUT (queued by older CLIs) is still checked against the internal version', async (t) => {
    const version = async () => {
      const patrol = (await store.repos.patrols.findPatrol(tenantId, patrolId))!;
      return patrolEtag(patrol, await store.repos.patrols.segmentsOf(tenantId, [patrolId]));
    };
    const stale = await version();
    const current = await s.json(`${P}/${patrolId}`, write('PATCH', { title: 'Matched' }, token, { 'If-Match': stale }));
    t.equal(current.status, 200, 'the current version passes');
    t.equal(current.headers.get('etag'), null, 'and is not served');
    const refused = await s.json(`${P}/${patrolId}`, write('PATCH', { title: 'Stale' }, token, { 'If-Match': stale }));
    t.equal(refused.status, 412, 'a stale one is 412');
    t.equal((await s.json(`${P}/${patrolId}`, { token })).body.title, 'Matched', 'and changed nothing');
    t.equal((await s.json(`${P}/${patrolId}`, write('PUT', { title: 'Put' }, token, { 'If-Match': await version() }))).status, 200, 'PUT too');
  });

  await t.test('subjects: 1 on create, +1 per group joined and per kind change; earthranger strips it', async (t) => {
    const plain = await services.subjects.create(tenantId, { name: 'Baraka' });
    t.equal(plain.revision, 1, 'a create without groups is 1');
    t.equal(leader.revision, 2, 'a create that joins one group is 2');
    const read = async (id: string) => (await s.json(`/api/v1.0/subject/${id}`, { token })).body.data;
    t.equal((await read(plain.id)).revision, 1);
    t.equal((await post(s, GPS, observation('collar-9', 0, { subject_name: 'Baraka', subject_subtype: 'rhino' }), token)).status, 201);
    const rhino = await read(plain.id);
    t.equal(rhino.subject_subtype, 'rhino');
    t.equal(rhino.revision, 2, 'a kind change moves it');
    t.equal((await post(s, GPS, observation('collar-9', 1, { subject_name: 'Baraka', subject_subtype: 'rhino', subject_groups: ['Rhinos'] }), token)).status, 201);
    t.equal((await read(plain.id)).revision, 3, 'joining a group moves it');
    t.equal((await post(s, GPS, observation('collar-9', 2, { subject_name: 'Baraka', subject_subtype: 'rhino', subject_groups: ['Rhinos'] }), token)).status, 201);
    t.equal((await read(plain.id)).revision, 3, 'a fix that changes nothing leaves it');
    const list = (await s.json('/api/v1.0/subjects', { token })).body.data;
    t.equal(list.find((x: Json) => x.id === plain.id).revision, 3, 'the subject list');

    const erOne = (await s.json(`/api/v1.0/subject/${plain.id}`, { token: er })).body;
    t.notOk('revision' in erOne.data, 'the earthranger subject detail');
    t.same(Object.keys(erOne.data).sort(), withoutRevision(await read(plain.id)));
    t.ok((await s.json('/api/v1.0/subjects', { token: er })).body.data.every((x: Json) => !('revision' in x)), 'the earthranger subject list');

    const groups = (await s.json('/api/v1.0/subjectgroups', { token })).body;
    const amani = groups.flatMap((g: Json) => g.subjects).find((x: Json) => x.id === leader.id);
    t.equal(amani.revision, 2, 'subject groups list their subjects with revisions');
    const erGroups = (await s.json('/api/v1.0/subjectgroups', { token: er })).body.data;
    t.ok(erGroups.flatMap((g: Json) => g.subjects).every((x: Json) => !('revision' in x)), 'not in the earthranger profile');
    const tracked = (await s.json(`${P}/trackedby`, { token })).body.properties.leader;
    t.equal(tracked.enum.find((x: Json) => x.id === leader.id).revision, 2, 'the tracked-by leaders');
    const erTracked = (await s.json(`${P}/trackedby`, { token: er })).body.data.properties.leader;
    t.ok(erTracked.enum.every((x: Json) => !('revision' in x)) && erTracked.enum_ext.every((x: Json) => !('revision' in x.value)), 'not in the earthranger tracked-by schema');
  });

  await t.test('the feed: Change.revision is the record\'s; null for catalogs and deletes; patrol etag null', async (t) => {
    const doomed = (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).body.id;
    t.equal((await s.json(`${ONE}/${doomed}`, send('DELETE', undefined, token))).status, 204);
    const changes: Change[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const answer: { status: number; body: Json } = await feed(s, token, { cursor, scopes: ['ev:all', 'pa:all', 'su:*', 'cat:*'] });
      t.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
      changes.push(...answer.body.changes);
      cursor = answer.body.cursor;
      if (!answer.body.has_more) break;
    }
    const puts = changes.filter((c) => c.op === 'put');
    for (const kind of ['event', 'patrol', 'subject'] as const) {
      const ofKind = puts.filter((c) => c.kind === kind);
      t.ok(ofKind.length > 0, `${kind} changes are served`);
      t.ok(ofKind.every((c) => typeof c.revision === 'number' && c.revision === (c.record as Json).revision), `${kind}: the change's revision is its record's`);
    }
    t.ok(puts.filter((c) => c.kind === 'patrol').every((c) => c.etag === null), 'patrols offer no etag');
    t.ok(puts.filter((c) => c.kind === 'event').every((c) => typeof c.etag === 'string'), 'events keep theirs');
    const catalogs = changes.filter((c) => !['event', 'patrol', 'subject'].includes(c.kind));
    t.ok(catalogs.length > 0 && catalogs.every((c) => c.revision === null), 'catalog kinds carry none');
    const patrolChange = puts.find((c) => c.kind === 'patrol' && c.id === patrolId)!;
    t.equal(patrolChange.revision, (await s.json(`${P}/${patrolId}`, { token })).body.revision);
    const gone = changes.find((c) => c.id === doomed);
    if (gone) t.same([gone.op, gone.revision], ['delete', null], 'a delete carries none');
    else t.pass('the deleted event never reached this fresh snapshot');

    const erPage = await feed(s, er, { cursor: null, scopes: ['ev:all', 'pa:all', 'su:*'] });
    const erPuts = (erPage.body.changes as Change[]).filter((c) => c.op === 'put');
    t.ok(erPuts.length > 0);
    t.ok(erPuts.every((c) => typeof c.revision === 'number'), 'the earthranger feed keeps Change.revision (one wire)');
    t.ok(erPuts.every((c) => !('revision' in (c.record as Json))), 'while its records are the earthranger payloads');
    const erPatrol = erPuts.find((c) => c.kind === 'patrol' && c.id === patrolId)!.record as Json;
    t.ok(erPatrol.patrol_segments.every((x: Json) => !('revision' in x) && (x.leader === null || !('revision' in x.leader))));
  });

  await t.test('Fieldops-Base-Revision: a positive integer, else 400 with the contract body', async (t) => {
    const event = (await s.json(E, send('POST', { event_type: 'sighting', title: 'Base', event_details: {} }, token))).body;
    const patrol = (await s.json(P, send('POST', { title: 'Base', patrol_segments: [{ patrol_type: 'foot' }] }, token))).body;
    const targets: Array<[string, string, string, unknown]> = [
      ['event PATCH', 'PATCH', `${ONE}/${event.id}`, { title: 'Changed' }],
      ['event DELETE', 'DELETE', `${ONE}/${event.id}`, undefined],
      ['patrol PATCH', 'PATCH', `${P}/${patrol.id}`, { title: 'Changed' }],
      ['patrol PUT', 'PUT', `${P}/${patrol.id}`, { title: 'Changed' }],
      ['segment PATCH', 'PATCH', `${SEGMENTS}/${patrol.patrol_segments[0].id}`, { scheduled_end: '2026-11-21T18:00:00+00:00' }],
      ['segment PUT', 'PUT', `${SEGMENTS}/${patrol.patrol_segments[0].id}`, { scheduled_end: '2026-11-21T18:00:00+00:00' }],
    ];
    const bad = ['0', '-1', '+1', '1e3', '1.0', '0x10', 'abc', '', '1 2', '9007199254740992', '99999999999999999999', '1'.repeat(10 * 1024), '\u00b9'];
    for (const [what, method, url, body] of targets) {
      for (const value of bad) {
        const answer = await s.json(url, write(method, body, token, { [HEADER]: value }));
        t.equal(answer.status, 400, `${what} with ${JSON.stringify(value.slice(0, 24))}: 400`);
        t.match(answer.body, { status: { code: 400 }, [HEADER]: [{ code: 'invalid' }] }, 'the contract body names the header');
      }
      // Two header lines are one comma-joined value: refused too.
      const twice = await s.request(url, { method, headers: [['Content-Type', 'application/json'], ['Authorization', `Bearer ${token}`], [HEADER, '1'], [HEADER, '2']], body: body === undefined ? undefined : JSON.stringify(body) });
      t.equal(twice.status, 400, `${what}: a repeated header`);
      await twice.arrayBuffer();
    }
    t.equal((await s.json(`${ONE}/${event.id}`, { token })).body.title, 'Base', 'no refused request changed the event');
    t.equal((await s.json(`${P}/${patrol.id}`, { token })).body.title, 'Base', 'nor the patrol');
    t.equal((await s.json(`${P}/${patrol.id}`, { token })).body.revision, 1);

    const fine = await s.json(`${ONE}/${event.id}`, write('PATCH', { title: 'Based' }, token, { [HEADER]: String(event.revision) }));
    t.equal(fine.status, 200, JSON.stringify(fine.body));
    t.equal(fine.body.revision, event.revision + 1);
    const patrolFine = await s.json(`${P}/${patrol.id}`, write('PATCH', { title: 'Based' }, token, { [HEADER]: '1' }));
    t.equal(patrolFine.status, 200, JSON.stringify(patrolFine.body));
    t.equal(patrolFine.body.revision, 2);
    const segmentFine = await s.json(`${SEGMENTS}/${patrol.patrol_segments[0].id}`, write('PATCH', { scheduled_end: '2026-11-21T18:00:00+00:00' }, token, { [HEADER]: '2' }));
    t.equal(segmentFine.status, 200, JSON.stringify(segmentFine.body));
    t.equal(segmentFine.body.revision, 3);
    const deleted = await s.request(`${ONE}/${event.id}`, { method: 'DELETE', token, headers: { [HEADER]: String(fine.body.revision) } });
    t.equal(deleted.status, 204, 'a delete based on the current revision');
  });

  await t.test('OpenAPI documents the header and no patrol validator', async (t) => {
    const doc = (await s.json('/api/openapi.json')).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    for (const [path, method] of [
      ['/api/v1.0/activity/event/{id}', 'patch'], ['/api/v1.0/activity/event/{id}', 'delete'],
      ['/api/v1.0/activity/patrols/{id}', 'patch'], ['/api/v1.0/activity/patrols/{id}', 'put'],
      ['/api/v1.0/activity/patrols/segments/{id}', 'patch'], ['/api/v1.0/activity/patrols/segments/{id}', 'put'],
    ] as const) t.match(op(path, method).description, /Fieldops-Base-Revision/, `${method.toUpperCase()} ${path}`);
    t.notOk(op('/api/v1.0/activity/patrols/{id}', 'get').responses['200'].headers?.ETag, 'no patrol ETag documented');
    t.equal(doc.components.schemas.Patrol.properties.revision.type, 'integer');
    t.equal(doc.components.schemas.Event.properties.revision.type, 'integer');
    t.equal(doc.components.schemas.PatrolSegment.properties.revision.type, 'integer');
    t.equal(doc.components.schemas.Subject.properties.revision.type, 'integer');
  });
});
