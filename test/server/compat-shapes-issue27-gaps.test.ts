import t from 'tap';
import { sampleSchema, send } from '../helpers/catalog.js';
import { ADMIN_PASSWORD, dialect, type TestServer } from '../helpers/server.js';
import { startFeedServer } from './sync/feed-support.js';

/**
 * Issue 27, the gaps left after it: the built-in incident type, `has_events_assigned`, the v2
 * schemas without `ui` choices, and unknown booleans on the track routes (earthranger profile).
 */
const V2 = '/api/v2.0/activity/eventtypes';
const EVENTS = '/api/v1.0/activity/events';

async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'das_web_client', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'das_web_client', username: 'admin', password: ADMIN_PASSWORD }) });
  return String(((await response.json()) as { access_token: string }).access_token);
}

t.test(`the built-in incident type, as the web app makes incidents (${dialect})`, async (t) => {
  const fixture = await startFeedServer(t);
  if (!fixture) return;
  const { s, token } = fixture;
  const er = await earthRangerToken(s);
  const contained = (await s.json(EVENTS, send('POST', { event_type: 'sighting', event_details: { notes: 'inside' }, priority: 100 }, token))).body;

  t.notOk((await s.json(V2, { token })).body.some((item: any) => item.value === 'incident_collection'), 'not seeded before it is needed');
  // The body of test/compat/web-map.test.ts (das-web-react createNewIncidentCollection).
  const created = await s.json(EVENTS, send('POST', { event_type: 'incident_collection', is_collection: true, title: 'Gate incident', priority: 300, state: 'active' }, er));
  t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
  const incident = created.body.data;
  t.match(incident, { event_type: 'incident_collection', is_collection: true, title: 'Gate incident', priority: 300, state: 'active' });

  const type = (await s.json(`${V2}/incident_collection`, { token })).body;
  t.match(type, { value: 'incident_collection', display: 'Incident Collection', is_collection: true, is_active: true });
  const schema = await s.json(`${V2}/incident_collection/schema`, { token });
  t.equal(schema.status, 200, 'its schema is served');
  const history = (await s.json(`${V2}/incident_collection/updates`, { token })).body;
  t.equal(history.count, 1, 'one created revision');

  const related = await s.json(`/api/v1.0/activity/event/${incident.id}/relationships`, send('POST', { type: 'contains', to_event_id: contained.id }, er));
  t.equal(related.status, 201, JSON.stringify(related.body).slice(0, 300));
  const read = (await s.json(`/api/v1.0/activity/event/${incident.id}`, { token: er })).body.data;
  t.ok(read.contains.some((entry: any) => entry.related_event.id === contained.id), 'the incident contains the event');
  const listedEvents = (await s.json(EVENTS, { token: er })).body.data.results;
  t.same(listedEvents.filter((event: any) => event.is_collection).map((event: any) => event.id), [incident.id], 'listed as the one collection');

  const second = await s.json(EVENTS, send('POST', { event_type: 'incident_collection', title: 'Another' }, token));
  t.equal(second.status, 201, 'the fieldops profile too');
  const listed = (await s.json(V2, { token })).body.filter((item: any) => item.value === 'incident_collection');
  t.equal(listed.length, 1, 'seeded once');

  await s.json(`${V2}/incident_collection`, send('PATCH', { is_active: false }, token));
  const refused = await s.json(EVENTS, send('POST', { event_type: 'incident_collection', title: 'Off' }, token));
  t.equal(refused.status, 400, 'a tenant that deactivated it keeps it deactivated');
  t.match(refused.body.event_type, [{ code: 'unknown_event_type' }]);
});

t.test(`has_events_assigned and the v2 schemas without ui choices (${dialect})`, async (t) => {
  const fixture = await startFeedServer(t);
  if (!fixture) return;
  const { s, token } = fixture;
  const er = await earthRangerToken(s);

  await t.test('has_events_assigned: true once an event has the type; the ETag follows it', async (t) => {
    const before = await s.json(V2, { token: er });
    t.match(before.body.data.find((item: any) => item.value === 'sighting'), { has_events_assigned: false });
    t.match(before.body.data.find((item: any) => item.value === 'intrusion'), { has_events_assigned: false });
    const etag = before.headers.get('etag')!;
    t.equal((await s.request(V2, { token: er, headers: { 'If-None-Match': etag } })).status, 304, 'unchanged: 304');
    t.equal((await s.json(EVENTS, send('POST', { event_type: 'sighting', event_details: { notes: 'seen' } }, token))).status, 201);
    const revalidated = await s.json(V2, { token: er, headers: { 'If-None-Match': etag } });
    t.equal(revalidated.status, 200, 'the first event of a type changes the list');
    t.match(revalidated.body.data.find((item: any) => item.value === 'sighting'), { has_events_assigned: true });
    t.match(revalidated.body.data.find((item: any) => item.value === 'intrusion'), { has_events_assigned: false });
    const detail = await s.json(`${V2}/sighting`, { token: er });
    t.equal(detail.body.data.has_events_assigned, true, 'on the detail too');
    t.equal((await s.json(`${V2}/intrusion`, { token: er })).body.data.has_events_assigned, false);
    const fieldops = (await s.json(V2, { token })).body;
    t.notOk('has_events_assigned' in fieldops[0], 'the fieldops shape is unchanged');
  });

  await t.test('has_events_assigned is the tenant\'s own', async (t) => {
    await s.server.runtime.admin.createTenant('north');
    await s.server.runtime.admin.createUser({ tenant: 'north', username: 'north.lead', password: 'Quiet-Heron-Passphrase-2', superuser: true });
    await s.server.runtime.admin.createClient({ tenant: 'north', clientId: 'north_web', grants: ['password'], profile: 'earthranger' });
    const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'north_web', username: 'north.lead', password: 'Quiet-Heron-Passphrase-2' }) });
    const north = String(((await response.json()) as { access_token: string }).access_token);
    t.equal((await s.json(V2, send('POST', { value: 'sighting', display: 'Sighting' }, north))).status, 201);
    const listed = (await s.json(V2, { token: north })).body.data;
    t.match(listed, [{ value: 'sighting', has_events_assigned: false }], 'the default tenant\'s sightings do not count');
  });

  await t.test('ui choices: left out of the schemas served in the earthranger profile, kept in fieldops', async (t) => {
    const body = { value: 'species_count', display: 'Species count', schema: sampleSchema('notes', 'https://example.org/api/v2.0/schemas/choices.json?field=species') };
    t.equal((await s.json(V2, send('POST', body, token))).status, 201);
    const stored = (await s.json(`${V2}/species_count?include_schema=true`, { token })).body.schema;
    t.ok(stored.ui.fields.species.choices, 'stored and served as stored in fieldops');
    const detail = (await s.json(`${V2}/species_count?include_schema=true`, { token: er })).body.data;
    t.notOk('choices' in detail.schema.ui.fields.species, 'detail: no choices');
    t.match(detail.schema.ui.fields.species, { type: 'CHOICE_LIST', inputType: 'DROPDOWN' }, 'the rest of the field stays');
    const listed = (await s.json(`${V2}?include_schema=true`, { token: er })).body.data.find((item: any) => item.value === 'species_count');
    t.notOk('choices' in listed.schema.ui.fields.species, 'list: no choices');
    const document = (await s.json(`${V2}/species_count/schema`, { token: er })).body;
    t.notOk('choices' in document.ui.fields.species, '/schema: no choices');
    t.ok((await s.json(`${V2}/species_count/schema`, { token })).body.ui.fields.species.choices, '/schema in fieldops: kept');
    const batch = (await s.json(`${V2}/schemas`, { token: er })).body;
    const entry = batch.results.find((result: any) => result.value === 'species_count');
    t.notOk('choices' in entry.schema.ui.fields.species, '/schemas: no choices');
  });
});

t.test(`an unknown boolean on the track routes: false in the earthranger profile, 400 in fieldops (${dialect})`, async (t) => {
  const fixture = await startFeedServer(t);
  if (!fixture) return;
  const { s, token } = fixture;
  const er = await earthRangerToken(s);
  for (const path of ['/api/v1.0/subjects/geojson', '/api/v1.0/subjects/kml', '/api/v1.0/trackingdata/export', '/api/v1.0/trackingmetadata/export']) {
    const answer = await s.request(`${path}?include_inactive=maybe`, { token: er });
    t.equal(answer.status, 200, `${path}: 200`);
    await answer.arrayBuffer();
    const fieldops = await s.json(`${path}?include_inactive=maybe`, { token });
    t.equal(fieldops.status, 400, `${path} in fieldops: 400`);
    t.match(fieldops.body.include_inactive, [{ code: 'invalid_boolean' }]);
  }
  const exported = await s.request('/api/v1.0/trackingdata/export?current_status=maybe', { token: er });
  t.equal(exported.status, 200, 'current_status too');
  await exported.arrayBuffer();
  const root = await s.request('/api/v1.0/subjects/kml/root?include_inactive=maybe', { token: er });
  t.equal(root.status, 200);
  const href = /<href>([^<]+)<\/href>/.exec(await root.text())?.[1] ?? '';
  t.equal(new URL(href.replace(/&amp;/g, '&')).searchParams.get('include_inactive'), 'false', 'the KML link says what it was read as');
});
