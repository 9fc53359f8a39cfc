import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { routeTable } from '../../server/http/routes/index.js';
import { E, ONE, P, SUBJECT_SIDE_FAMILIES, count, keyedJson, keyedUpload, knexOf, newKey, replayed } from './idempotency-support.js';

/**
 * The record writes that must honour Idempotency-Key: every unsafe route of these families
 * (issue 26), and of the subject side's (issue 27: checked in idempotency-subject-side.test.ts).
 */
const RECORD_FAMILIES = /^(events|segments|patrols|notes|files)\./;
const KEYED_FAMILIES = new RegExp(`${RECORD_FAMILIES.source}|${SUBJECT_SIDE_FAMILIES.source}`);
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

type Request = { path: string; init: RequestInit & { token: string } };

t.test(`every record write of the route table honours Idempotency-Key (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);
  const fixtures = await fixturesOf(s, token);
  const requests = requestsFor(fixtures, token);

  const routes = routeTable(s.server.runtime.services).filter((route) => UNSAFE.has(route.method));
  const keyedNames = routes.filter((route) => route.idempotent).map((route) => route.name);
  t.same(
    routes.filter((route) => KEYED_FAMILIES.test(route.name)).map((route) => route.name).sort(),
    [...keyedNames].sort(),
    'exactly the unsafe routes of events, segments, patrols and their notes and files, and of the subject side, are keyed (not catalogs, users, OAuth, sensor posts, sync reads)',
  );
  const recordNames = keyedNames.filter((name) => RECORD_FAMILIES.test(name));
  t.same(Object.keys(requests).sort(), [...recordNames].sort(), 'a request for each keyed record route below');

  for (const name of recordNames) {
    await t.test(name, async (t) => {
      const key = newKey();
      const request = await requests[name]!(key);
      const first = await s.json(request.path, request.init);
      t.ok(first.status >= 200 && first.status < 300, `${first.status} ${JSON.stringify(first.body)}`);
      t.notOk(replayed(first));
      const row = await knexOf(s)('idempotency_keys').where({ key }).first();
      t.match(row, { state: 'answered', op: name }, 'the key is stored with the write');
      const second = await s.json(request.path, (await requests[name]!(key, request)).init);
      t.equal(second.status, first.status, 'the stored status');
      t.ok(replayed(second), 'Idempotent-Replayed: true');
      t.same(second.body, first.body, 'the stored body');
      t.equal(await count(s, 'idempotency_keys', { key }), 1);
    });
  }
});

interface Fixtures {
  event: string;
  segment: string;
  patrol: string;
  note: string;
  file: string;
  patrolNote: string;
  patrolFile: string;
  fresh: { event(): Promise<string>; note(): Promise<string>; file(): Promise<string>; contained(): Promise<string>; patrol(): Promise<string> };
}

async function fixturesOf(s: TestServer, token: string): Promise<Fixtures> {
  const patrol = (await s.json(P, send('POST', { title: 'Keyed', patrol_segments: [{}] }, token))).body;
  const event = async () => (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).body.id as string;
  const eventId = await event();
  const note = async () => (await s.json(`${ONE}/${eventId}/notes`, send('POST', { text: 'A note' }, token))).body.id as string;
  const file = async () => {
    const form = new FormData();
    form.append('filecontent.file', new Blob([Buffer.from('%PDF-1.4 x\n')]), 'a.pdf');
    return (await s.json(`${ONE}/${eventId}/files/`, { method: 'POST', body: form, token })).body.id as string;
  };
  const patrolNote = (await s.json(`${P}/${patrol.id}/notes`, send('POST', { text: 'Patrol note' }, token))).body.id;
  const form = new FormData();
  form.append('filecontent.file', new Blob([PNG]), 'fence.png');
  const patrolFile = (await s.json(`${P}/${patrol.id}/files`, { method: 'POST', body: form, token })).body.id;
  // An event the fixture event contains (an incident's relationship, issue 27), made anew for each delete.
  const contained = async () => {
    const id = await event();
    await s.json(`${ONE}/${eventId}/relationships`, send('POST', { type: 'contains', to_event_id: id }, token));
    return id;
  };
  const freshPatrol = async () => (await s.json(P, send('POST', { title: 'To delete' }, token))).body.id as string;
  return { event: eventId, segment: patrol.patrol_segments[0].id, patrol: patrol.id, note: await note(), file: await file(), patrolNote, patrolFile, fresh: { event, note, file, contained, patrol: freshPatrol } };
}

/**
 * One request per keyed route. Called again with the first request to send it again: a delete's
 * target is made once; an upload is framed anew (another multipart boundary).
 */
function requestsFor(f: Fixtures, token: string): Record<string, (key: string, again?: Request) => Promise<Request>> {
  const json = (method: string, path: string, body: unknown) => async (key: string, again?: Request) => again ?? { path, init: keyedJson(method, body, token, key) };
  const remove = (target: () => Promise<string>) => async (key: string, again?: Request) => again ?? { path: await target(), init: keyedJson('DELETE', undefined, token, key) };
  const upload = (path: string, bytes: Buffer, filename: string, fields: Record<string, string>) => async (key: string) => ({ path, init: keyedUpload(bytes, filename, fields, token, key) });
  return {
    'segments.events.create': json('POST', `${P}/segments/${f.segment}/events`, { event_type: 'sighting', event_details: {} }),
    'events.create': json('POST', E, { event_type: 'sighting', title: 'Keyed create', event_details: {} }),
    'events.patch': json('PATCH', `${E}/${f.event}`, { state: 'resolved' }),
    'events.delete': remove(async () => `${ONE}/${await f.fresh.event()}`),
    'events.notes.create': json('POST', `${ONE}/${f.event}/notes`, { text: 'Keyed note' }),
    'events.note.patch': json('PATCH', `${ONE}/${f.event}/note/${f.note}`, { text: 'Keyed edit' }),
    'events.note.delete': remove(async () => `${ONE}/${f.event}/note/${await f.fresh.note()}`),
    'events.files.upload': upload(`${ONE}/${f.event}/files/`, Buffer.from('%PDF-1.4 keyed\n'), 'keyed.pdf', { comment: 'Keyed' }),
    'events.file.delete': remove(async () => `${ONE}/${f.event}/file/${await f.fresh.file()}`),
    'events.relationships.add': async (key, again) => again ?? { path: `${ONE}/${f.event}/relationships`, init: keyedJson('POST', { type: 'contains', to_event_id: await f.fresh.event() }, token, key) },
    'events.relationship.delete': remove(async () => `${ONE}/${f.event}/relationship/contains/${await f.fresh.contained()}/`),
    'patrols.delete': remove(async () => `${P}/${await f.fresh.patrol()}`),
    'segments.create': json('POST', `${P}/segments`, { patrol: f.patrol }),
    'segments.replace': json('PUT', `${P}/segments/${f.segment}`, { patrol: f.patrol, time_range: { end_time: null } }),
    'segments.patch': json('PATCH', `${P}/segments/${f.segment}`, { time_range: { end_time: null } }),
    'patrols.create': json('POST', P, { title: 'Keyed patrol' }),
    'patrols.replace': json('PUT', `${P}/${f.patrol}`, { title: 'Keyed replace' }),
    'patrols.patch': json('PATCH', `${P}/${f.patrol}`, { title: 'Keyed patch' }),
    'notes.create': json('POST', `${P}/${f.patrol}/notes`, { text: 'Keyed patrol note' }),
    'notes.replace': json('PUT', `${P}/${f.patrol}/notes/${f.patrolNote}`, { text: 'Keyed replace' }),
    'notes.patch': json('PATCH', `${P}/${f.patrol}/notes/${f.patrolNote}`, { text: 'Keyed patch' }),
    'files.upload': upload(`${P}/${f.patrol}/files`, PNG, 'keyed.png', { comment: 'Keyed' }),
    'files.replace': json('PUT', `${P}/${f.patrol}/files/${f.patrolFile}`, { comment: 'Keyed replace' }),
    'files.patch': json('PATCH', `${P}/${f.patrol}/files/${f.patrolFile}`, { comment: 'Keyed patch' }),
  };
}
