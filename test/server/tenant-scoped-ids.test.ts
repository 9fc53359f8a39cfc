import { randomUUID } from 'node:crypto';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

// Issue 13 item 12 (ids): client-supplied ids are unique per tenant. An id another tenant uses
// creates normally (was 409: an existence oracle and id squatting); the same tenant's id is 409.
const P = '/api/v1.0/activity/patrols';
const E = '/api/v1.0/activity/events';
const schema = { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { note: { type: 'string' } } }, ui: { fields: { note: { type: 'TEXT', inputType: 'SHORT_TEXT' } }, sections: {}, order: [], headers: {} } };

t.test(`ids of patrols, segments and events are per tenant (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const admin = s.server.runtime.admin;
  const north = (await s.login()).access_token;
  await admin.createTenant('ids-south');
  await admin.createUser({ tenant: 'ids-south', username: 'ids.south', password: 'Oribi-South-Pass-2', superuser: true });
  const south = (await s.login('ids.south', 'Oribi-South-Pass-2')).access_token;
  for (const token of [north, south]) t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'note', display: 'Note', schema }, token))).status, 201);

  const patrolId = randomUUID();
  const segmentId = randomUUID();
  const loneSegmentId = randomUUID();
  const eventId = randomUUID();
  const create = async (token: string, title: string) => ({
    patrol: await s.json(P, send('POST', { id: patrolId, title, patrol_segments: [{ id: segmentId }] }, token)),
    segment: await s.json(`${P}/segments`, send('POST', { id: loneSegmentId, patrol: patrolId }, token)),
    event: await s.json(E, send('POST', { id: eventId, event_type: 'note', title, event_details: { note: title }, patrol_segments: [segmentId] }, token)),
  });

  const first = await create(north, 'North');
  t.same([first.patrol.status, first.segment.status, first.event.status], [201, 201, 201], 'north creates');
  const second = await create(south, 'South');
  t.same([second.patrol.status, second.segment.status, second.event.status], [201, 201, 201], "south reuses north's ids: created, not 409");
  const again = await create(north, 'North again');
  t.same([again.patrol.status, again.segment.status, again.event.status], [409, 409, 409], 'a tenant reusing its own id: 409');

  for (const [token, title] of [[north, 'North'], [south, 'South']] as const) {
    const patrol = await s.json(`${P}/${patrolId}`, { token });
    t.equal(patrol.body.title, title, `${title} reads its own patrol`);
    t.same(patrol.body.patrol_segments.map((segment: { id: string }) => segment.id).sort(), [segmentId, loneSegmentId].sort(), `${title}: its own segments`);
    const event = await s.json(`${E}/${eventId}`, { token });
    t.equal(event.body.title, title, `${title} reads its own event`);
    const linked = await s.json(`${P}/segments/${segmentId}/events`, { token });
    t.same(linked.body.results.map((e: { title: string }) => e.title), [title], `${title}: the segment's events are its own`);
    t.same(event.body.patrol_segments, [segmentId]);
  }
  const patched = await s.json(`${P}/${patrolId}`, send('PATCH', { title: 'South renamed' }, south));
  t.equal(patched.status, 200);
  t.equal((await s.json(`${P}/${patrolId}`, { token: north })).body.title, 'North', "a write in one tenant leaves the other's object alone");
  const listed = await s.json(`${P}?filter=${encodeURIComponent(JSON.stringify({ text: 'North' }))}`, { token: north });
  t.equal(listed.body.count, 1);

  // Notes and files of a patrol take client ids too: per tenant as well (migration 0801).
  const noteId = randomUUID();
  const fileId = randomUUID();
  const note = (token: string) => s.json(`${P}/${patrolId}/notes`, send('POST', { id: noteId, text: 'Gate locked' }, token));
  const file = (token: string) => {
    const form = new FormData();
    form.append('filecontent.file', new Blob([Buffer.from('field notes')]), 'notes.txt');
    form.append('id', fileId);
    return s.json(`${P}/${patrolId}/files`, { method: 'POST', body: form, token });
  };
  t.same([(await note(north)).status, (await file(north)).status], [201, 201], 'north: a note and a file with client ids');
  t.same([(await note(south)).status, (await file(south)).status], [201, 201], "south reuses north's note and file ids: created, not 409");
  t.same([(await note(north)).status, (await file(north)).status], [409, 409], 'north reusing its own: 409');

  // The same id in two tenants: what one tenant does to its event never reaches the other's.
  t.equal((await s.json(`/api/v1.0/activity/event/${eventId}/notes`, send('POST', { text: 'Snare wire by the culvert' }, north))).status, 201);
  const byNote = (token: string) => s.json(`${E}?filter=${encodeURIComponent(JSON.stringify({ text: 'culvert' }))}`, { token });
  t.same((await byNote(north)).body.results.map((e: { title: string }) => e.title), ['North'], "north finds its event by its note's text");
  t.same((await byNote(south)).body.results, [], "south's event of the same id is not found by north's note");
  t.equal((await s.json(`/api/v1.0/activity/event/${eventId}`, { method: 'DELETE', token: north })).status, 204, 'north deletes its event');
  const southLinked = await s.json(`${P}/segments/${segmentId}/events`, { token: south });
  t.same(southLinked.body.results.map((e: { title: string }) => e.title), ['South'], "south's segment still lists its event after north deleted the same id");
});
