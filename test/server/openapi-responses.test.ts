import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { routeTable } from '../../server/http/routes/index.js';
import { sampleSchema } from '../helpers/catalog.js';
import { repoRoot } from '../helpers/cli.js';
import { dialect, startTestServer } from '../helpers/server.js';

const V1_TEXT = '{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {"a": {"type": "string"}}}, "definition": ["a"]}';
const at = (minute: number) => `2026-11-20T08:${String(minute).padStart(2, '0')}:00+03:00`;
const reading = (minute: number, extra: Record<string, unknown> = {}) => ({ manufacturer_id: 'resp-radio', recorded_at: at(minute), location: { lat: -1.2, lon: 36.8 }, subject_name: 'Resp ranger', ...extra });

/**
 * One representative request per route of the table (successes where the route can succeed),
 * every response checked against the route's described responses by the server's response
 * checker: the description and the server cannot drift apart unnoticed.
 */
t.test(`every route answers as /api/openapi.json describes (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const { admin, services } = s.server.runtime;
  const post = async (p: string, body: unknown) => {
    const response = await s.json(p, { method: 'POST', token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status >= 300) throw new Error(`${p}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  for (const value of ['resp-type', 'resp-type-2']) await post('/api/v1.0/activity/patrols/types', { value, display: value, schema: sampleSchema() });
  await post('/api/v2.0/activity/eventcategories', { value: 'resp-cat', display: 'Resp' });
  for (const value of ['resp-event', 'resp-event-2']) await post('/api/v2.0/activity/eventtypes', { value, display: value, category: 'resp-cat' });
  await post('/api/v1.0/activity/events/eventtypes', { value: 'resp-v1', display: 'Resp', schema: V1_TEXT });
  const choice = await post('/api/v2.0/choices', { field: 'resp', value: 'one', display: 'One' });
  const patrol = await post('/api/v1.0/activity/patrols', { title: 'Resp', patrol_segments: [{ patrol_type: 'resp-type' }], notes: [{ text: 'n' }] });
  await post('/sensors/gps-radio/resp-provider/status', reading(1));
  const subject = (await s.json('/api/v1.0/subjects', { token })).body.data[0];
  const user = await admin.createUser({ tenant: 'default', username: 'resp.user', password: 'Klipspringer-Pass-1' });
  const image = () => new Blob([fs.readFileSync(path.join(repoRoot, 'fixtures/sensors/camera-no-exif.jpg'))]);
  const form = (fields: Record<string, string | Blob>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) value instanceof Blob ? data.append(name, value, name === 'filecontent.file' ? 'file.jpg' : undefined) : data.append(name, value);
    return data;
  };
  const upload = await s.json(`/api/v1.0/activity/patrols/${patrol.id}/files`, { method: 'POST', token, body: form({ 'filecontent.file': image(), comment: 'c' }) });
  const report = await s.json('/sensors/camera-trap/resp-cam/status', { method: 'POST', token, body: form({ 'filecontent.file': image() }) });
  const event = (await s.json(`/api/v1.0/activity/events/${report.body.data.group_id}`, { token })).body;

  const params: Record<string, Record<string, string>> = {
    patroltypes: { key: 'resp-type' }, eventtypes: { key: 'resp-event' }, eventcategories: { key: 'resp-cat' }, eventtypes_v1: { key: 'resp-v1' },
    choices: { id: choice.id }, segments: { id: patrol.patrol_segments[0].id }, patrols: { id: patrol.id }, notes: { id: patrol.id, noteId: patrol.notes[0].id },
    files: { id: patrol.id, fileId: upload.body.id }, events: { id: event.id, fileId: event.files[0].id }, users: { id: user.id }, subjects: { id: subject.id },
    sensors: { provider_key: 'resp-provider', type: 'acme-collar' }, docs: { file: 'init.js' },
  };
  const json = (body: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const oauthForm = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields) });
  const requests: Record<string, RequestInit> = {
    'oauth.token': oauthForm({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: 'wrong-password-0' }),
    'oauth.revoke': oauthForm({ token: 'unknown', client_id: 'fieldops-cli' }),
    'users.create': json({ username: 'resp.new', password: 'Good-Passphrase-9' }),
    'patroltypes.create': json({ value: 'resp-new', display: 'New' }), 'patroltypes.replace': json({ value: 'resp-type', display: 'Replaced' }),
    'patroltypes.patch': json({ display: 'Patched' }), 'patroltypes.rank': json({ before_key: null }),
    'eventtypes.create': json({ value: 'resp-ev-new', display: 'New' }), 'eventtypes.replace': json({ value: 'resp-event', display: 'Replaced' }),
    'eventtypes.patch': json({ display: 'Patched' }), 'eventtypes.rank': json({ before_key: null }), 'eventtypes.migrate': json({ event_types: ['resp-v1'], dry_run: true }),
    'eventcategories.create': json({ value: 'resp-cat-2' }), 'eventcategories.patch': json({ display: 'Patched' }),
    'eventtypes_v1.create': json({ value: 'resp-v1-2', schema: V1_TEXT }), 'eventtypes_v1.replace': json({ value: 'resp-v1', schema: V1_TEXT }), 'eventtypes_v1.patch': json({ display: 'Patched' }),
    'choices.create': json({ field: 'resp', value: 'two' }), 'choices.replace': json({ field: 'resp', value: 'one', display: 'Uno' }), 'choices.patch': json({ display: 'One' }),
    'patrols.create': json({ title: 'New', patrol_segments: [{ patrol_type: 'resp-type', time_range: { start_time: at(0), end_time: null } }] }),
    'patrols.replace': json({ title: 'Replaced' }), 'patrols.patch': json({ objective: 'Patched' }),
    'segments.create': json({ patrol: patrol.id, scheduled_start: at(5) }), 'segments.replace': json({ start_location: { latitude: -1, longitude: 36 } }), 'segments.patch': json({ leader: null }),
    'notes.create': json({ text: 'More' }), 'notes.replace': json({ text: 'Replaced' }), 'notes.patch': json({ text: 'Patched' }),
    'files.upload': { body: form({ 'filecontent.file': new Blob([Buffer.from('plain text')]), comment: 'x' }) }, 'files.replace': json({ comment: 'r' }), 'files.patch': json({ ordernum: 2 }),
    'events.create': json({ event_type: 'resp-event', event_details: {} }), 'events.patch': json({ state: 'resolved' }), 'segments.events.create': json({ event_type: 'resp-event', event_details: {} }),
    'sensors.gpsradio': json([reading(2), reading(1)]), 'sensors.generic': json(reading(3)),
    'sensors.radioagent': json([{ message_key: 'observation', ...reading(4) }, { message_key: 'heartbeat', heartbeat: { battery: 90 } }]),
    'sensors.cameratrap': { body: form({ 'filecontent.file': image(), camera_name: 'Again' }) },
  };
  const queries: Record<string, string> = {
    'oauth.authorize': '?response_type=code&client_id=fieldops-cli', 'choices.json': '?field=resp', 'patroltypes.schema': '?pre_render=true&s_format=enum',
    'patroltypes.schemas': '?pre_render=true', 'patrols.list': '?status=active&exclude_empty_patrols=true', 'observations.list': '?ordering=-recorded_at',
  };
  const last = new Set(['patroltypes.delete', 'eventtypes.delete', 'choices.delete']);
  const table = routeTable(services);
  const ordered = [...table.filter((route) => !last.has(route.name)), ...table.filter((route) => last.has(route.name))];
  const deleteKeys: Record<string, Record<string, string>> = { 'patroltypes.delete': { key: 'resp-type-2' }, 'eventtypes.delete': { key: 'resp-event-2' } };
  for (const route of ordered) {
    const values = { ...params[route.name.split('.')[0]!], ...deleteKeys[route.name] };
    const url = route.paths[0]!.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x')) + (queries[route.name] ?? '');
    const response = await s.request(url, { method: route.method, token, ...requests[route.name] });
    await response.arrayBuffer();
    t.ok(response.status < 500, `${route.method} ${route.name}: ${response.status}`);
    const etag = response.headers.get('etag');
    if (route.method === 'GET' && etag && response.status === 200) {
      const responses = (route.schema?.responses ?? {}) as Record<number, { headers?: Record<string, string> }>;
      if (304 in responses) {
        const revalidated = await s.request(url, { token, headers: { 'If-None-Match': etag } });
        t.equal(revalidated.status, 304, `${route.name}: revalidated`);
      } else {
        // A tag that is not a cache validator (the patrol's version for If-Match) is documented as such.
        t.ok(responses[200]?.headers?.ETag, `${route.name}: an ETag without 304 is documented on its 200`);
      }
    }
  }
  const checker = services.responseCheck!;
  t.ok(checker, 'the response checker is on in tests');
  t.same(checker.violations, [], 'every response matched its description');
});
