import t from 'tap';
import { routeTable } from '../../server/http/routes/index.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { sampleSchema, send } from '../helpers/catalog.js';
import { fixtureText } from '../helpers/fixtures.js';
import { repoRoot } from '../helpers/cli.js';
import fs from 'node:fs';
import path from 'node:path';

const V1_TEXT = '{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {"a": {"type": "string"}}}, "definition": ["a"]}';

/**
 * The tenant isolation matrix: for every route that addresses an object, a caller of tenant B
 * on tenant A's objects gets 404 and changes nothing; a caller of A without the permission
 * gets 403; an anonymous caller gets the same 401 whether the object exists or not.
 */
t.test(`tenant isolation and permission matrix over the route table (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin, services, database } = s.server.runtime;
  const token = (await s.login()).access_token;
  const json = async (p: string, body: unknown, method = 'POST') => {
    const response = await s.json(p, send(method, body, token));
    if (response.status >= 300) throw new Error(`${p}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  // Tenant A (default): one of everything.
  await json('/api/v1.0/activity/patrols/types', { value: 'iso-type', display: 'Iso', schema: sampleSchema() });
  await json('/api/v2.0/activity/eventcategories', { value: 'iso-cat', display: 'Iso' });
  await json('/api/v2.0/activity/eventtypes', { value: 'iso-event', display: 'Iso', category: 'iso-cat' });
  await json('/api/v1.0/activity/events/eventtypes', { value: 'iso-v1', display: 'Iso', schema: V1_TEXT });
  const choice = await json('/api/v2.0/choices', { field: 'iso', value: 'one', display: 'One' });
  const patrol = await json('/api/v1.0/activity/patrols', { title: 'Iso', patrol_segments: [{}], notes: [{ text: 'n' }] });
  const form = new FormData();
  form.append('filecontent.file', new Blob([Buffer.from('iso file')]), 'iso.txt');
  const file = (await s.json(`/api/v1.0/activity/patrols/${patrol.id}/files`, { method: 'POST', body: form, token })).body;
  const camera = new FormData();
  camera.append('filecontent.file', new Blob([fs.readFileSync(path.join(repoRoot, 'fixtures/sensors/camera-no-exif.jpg'))]), 'cam.jpg');
  const report = (await s.json('/sensors/camera-trap/iso-cam/status', { method: 'POST', body: camera, token })).body.data;
  const event = (await s.json(`/api/v1.0/activity/events/${report.group_id}`, { token })).body;
  await json('/sensors/gps-radio/iso-provider/status', { manufacturer_id: 'iso-radio', recorded_at: '2026-11-20T10:00:00+00:00', location: { lat: 1, lon: 1 }, subject_name: 'Iso subject' });
  const subject = (await s.json('/api/v1.0/subjects', { token })).body.data.results?.[0] ?? (await s.json('/api/v1.0/subjects', { token })).body.data[0];
  // The subject side (issue 27): a source, its provider and an assignment; a message; a feature set; an incident.
  const source = (await json('/api/v1.0/sources', { manufacturer_id: 'iso-source', provider: 'iso-provider' })).data;
  const assignment = (await json('/api/v1.0/subjectsources', { subject: subject.id, source: source.id })).data;
  const provider = (await s.json('/api/v1.0/sourceproviders', { token })).body.data.results[0];
  const message = (await json('/api/v1.0/messages', { text: 'iso', receiver: { id: subject.id } })) as { id: string };
  const featureSet = (await services.features.importCollection('default', { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [1, 1] } }] }, 'iso')).set;
  const featureId = (await database.knex('features').select('id').where({ featureset_id: featureSet.id }).first()).id as string;
  const contained = (await json('/api/v1.0/activity/events', { event_type: 'iso-event', event_details: {} })) as { id: string };
  await json(`/api/v1.0/activity/event/${event.id}/relationships`, { type: 'contains', to_event_id: contained.id });
  const userA = await admin.createUser({ tenant: 'default', username: 'iso.nobody', password: 'Klipspringer-Pass-1' });
  const ids: Record<string, string> = {
    key: '', id: '', noteId: patrol.notes[0].id, fileId: '', provider_key: 'iso-provider', type: 'gps-radio',
    group_id: '00000000-0000-4000-8000-000000000000', source: source.id, to: contained.id,
  };
  const paramsFor = (name: string): Record<string, string> => {
    const area = name.split('.')[0]!;
    if (name === 'events.relationship.delete') return { ...ids, id: event.id, type: 'contains' };
    const byArea: Record<string, Record<string, string>> = {
      patroltypes: { key: 'iso-type' }, eventtypes: { key: 'iso-event' }, eventcategories: { key: 'iso-cat' }, eventtypes_v1: { key: 'iso-v1' },
      choices: { id: choice.id }, segments: { id: patrol.patrol_segments[0].id }, patrols: { id: patrol.id }, notes: { id: patrol.id },
      files: { id: patrol.id, fileId: file.id }, events: { id: event.id, fileId: event.files[0]?.id ?? '' }, users: { id: userA.id }, subjects: { id: subject.id }, sync: { id: event.id, kind: 'event' },
      sources: { id: source.id }, sourceproviders: { id: provider.id }, subjectsources: { id: assignment.id }, tracks: { id: subject.id },
      messages: { id: message.id }, features: { id: featureSet.id }, feature: { id: featureId },
    };
    return { ...ids, ...byArea[area] };
  };
  const bodies: Record<string, unknown> = {
    'patroltypes.replace': { value: 'iso-type', display: 'X' }, 'patroltypes.patch': { display: 'X' }, 'patroltypes.rank': { before_key: null },
    'eventtypes.replace': { value: 'iso-event', display: 'X' }, 'eventtypes.patch': { display: 'X' }, 'eventtypes.rank': { before_key: null },
    'eventcategories.patch': { display: 'X' }, 'eventtypes_v1.replace': { value: 'iso-v1', schema: V1_TEXT }, 'eventtypes_v1.patch': { display: 'X' },
    'choices.replace': { field: 'iso', value: 'one', display: 'X' }, 'choices.patch': { display: 'X' },
    'segments.replace': {}, 'segments.patch': {}, 'patrols.replace': { title: 'X' }, 'patrols.patch': { title: 'X' },
    'notes.create': { text: 'X' }, 'notes.replace': { text: 'X' }, 'notes.patch': { text: 'X' }, 'files.replace': { comment: 'X' }, 'files.patch': { comment: 'X' },
    'segments.events.create': { event_type: 'iso-event', event_details: {} }, 'events.patch': { state: 'resolved' },
    'messages.patch': { read: true }, 'events.relationships.add': { type: 'contains', to_event_id: contained.id },
    'eventtypes.restore': { revision: 1 }, 'eventtypes.draft_put': { schema: { json: { type: 'object', properties: {} }, ui: { fields: {} } } },
    'sync.conflicts.resolve': { choice: 'theirs' }, 'sync.push': { entries: [{ key: 'iso-1', op: 'event.update', id: event.id, body: { state: 'resolved' } }] },
  };
  const request = (route: { name: string; method: string; paths: readonly string[] }, bearer: string | null) => {
    const params = paramsFor(route.name);
    const path = route.paths[0]!.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? 'x'));
    // issue 28: as_of names a revision (or a date) in its query
    const url = route.name === 'eventtypes.as_of' ? `${path}?revision=1` : path;
    const init: RequestInit & { token?: string } = { method: route.method, ...(bearer ? { token: bearer } : {}) };
    if (route.name === 'files.upload') {
      const upload = new FormData();
      upload.append('filecontent.file', new Blob([Buffer.from('x')]), 'x.txt');
      init.body = upload;
    } else if (route.method !== 'GET' && route.method !== 'DELETE') {
      init.body = JSON.stringify(bodies[route.name] ?? {});
      init.headers = { 'Content-Type': 'application/json' };
    }
    return s.json(url, init);
  };
  const dump = async () => {
    const tables = ['patrol_types', 'event_types', 'event_types_v1', 'event_categories', 'choices', 'patrols', 'patrol_segments', 'patrol_notes', 'patrol_files', 'events', 'segment_events', 'catalog_versions', 'catalog_revisions', 'users', 'subjects', 'observations', 'sensor_sources', 'subject_sources', 'messages', 'feature_sets', 'features', 'event_relationships'];
    return JSON.stringify(await Promise.all(tables.map((table) => database.knex(table).select().orderBy(1))));
  };
  const addressed = routeTable(services).filter((route) => route.authenticate && /:(id|key|noteId|fileId)\b/.test(route.paths[0]!));
  t.ok(addressed.length >= 35, `${addressed.length} routes address an object`);

  await admin.createTenant('tenant-b');
  await admin.createUser({ tenant: 'tenant-b', username: 'b.super', password: 'Tenant-B-Pass-1', superuser: true });
  const tenantB = (await s.login('b.super', 'Tenant-B-Pass-1')).access_token;
  const before = await dump();
  for (const route of addressed) {
    const response = await request(route, tenantB);
    t.equal(response.status, 404, `tenant B, ${route.method} ${route.name}: 404`);
  }
  t.equal(await dump(), before, "tenant B changed nothing of tenant A's");

  const nobody = (await s.login('iso.nobody', 'Klipspringer-Pass-1')).access_token;
  // The startup reads of the original apps (CONTRACT §11) are any user's: their own profiles,
  // the site's map and status, the static event schema, and the empty lists of features not provided.
  const anyUserMay = new Set(['users.get', 'choices.json', 'users.profiles', 'status', 'maps', 'events.schema', 'layers', 'analyzers.spatial', 'news']);
  for (const route of routeTable(services).filter((r) => r.authenticate && !r.name.startsWith('sensors.') && !anyUserMay.has(r.name) && !['users.me', 'oauth.authorize'].includes(r.name))) {
    const response = await request(route, nobody);
    t.equal(response.status, 403, `no permission, ${route.method} ${route.name}: 403`);
  }
  t.equal(await dump(), before, 'refused callers changed nothing');

  for (const route of addressed.filter((r) => r.method === 'GET')) {
    const existing = await request(route, null);
    const missing = await s.json(route.paths[0]!.replace(/:([A-Za-z_]+)/g, '00000000-0000-4000-8000-000000000000'));
    t.equal(existing.status, 401, `anonymous ${route.name}: 401`);
    t.same(existing.body, missing.body, `anonymous ${route.name}: the same answer whether it exists or not`);
  }
  t.ok(fixtureText('demo/users.json').length > 0);
});
