import t from 'tap';
import { parse } from 'csv-parse/sync';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const E = '/api/v1.0/activity/events';
const EXPORT = `${E}/export/`;

/** The events export (issue 27 §4): CSV of the filter, one column set per type present (from its schema), Other Details, streamed in batches. */
t.test(`events export: CSV of the filter, one column set per type (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const type = (value: string, properties: Record<string, unknown>, placed: string[] = []) => ({
    value, display: value === 'sighting' ? 'Rhino sighting' : 'Fence damage',
    schema: {
      json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties },
      ui: placed.length
        ? { fields: {}, sections: { main: { label: 'Main', columns: 1, isActive: true, leftColumn: placed.map((name) => ({ name, type: 'field' })), rightColumn: [] } }, order: ['main'], headers: {} }
        : { fields: {}, sections: {}, order: [], headers: {} },
    },
  });
  // The sighting's form places `note` before `count`: the columns follow the form, not the schema.
  for (const body of [type('sighting', { count: { type: 'integer', title: 'How many' }, note: { type: 'string' } }, ['note', 'count']), type('fence', { metres: { type: 'number', title: 'Length (m)' }, posts: { type: 'integer', title: 'Posts' } })]) {
    const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', body, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
  }
  const post = async (body: Record<string, unknown>) => {
    const answer = await s.json(E, send('POST', body, token));
    t.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body;
  };
  await post({ event_type: 'sighting', title: 'Two, "big" ones', event_details: { count: 2, note: 'line one\nline two' }, location: { latitude: -1.5, longitude: 36.5 }, time: '2026-11-20T08:00:00+00:00' });
  await post({ event_type: 'fence', event_details: { metres: 12.5 }, time: '2026-11-20T09:00:00+00:00', state: 'active' });
  await post({ event_type: 'sighting', event_details: {}, time: '2026-11-20T07:00:00+00:00' });

  const download = async (query = '', bearer = token) => {
    const response = await s.request(`${EXPORT}${query}`, { token: bearer });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  await t.test('the common columns, then each type\'s details titled from its schema; quoting by csv-stringify', async (t) => {
    const file = await download();
    t.equal(file.status, 200, file.text);
    t.match(file.headers.get('content-type'), /^text\/csv/);
    t.match(file.headers.get('content-disposition'), /^attachment; filename="events_export_\d{8}T\d{6}Z\.csv"$/);
    const rows = parse(file.text, { columns: true }) as Array<Record<string, string>>;
    t.equal(rows.length, 3);
    const header = Object.keys(rows[0]!);
    t.same(header.slice(0, 4), ['Serial Number', 'Id', 'Event Type', 'Event Category']);
    t.same(header.slice(13), ['Fence damage: Length (m)', 'Fence damage: Posts', 'Rhino sighting: note', 'Rhino sighting: How many', 'Other Details'],
      'one set per type present, from its schema (a property no event holds too), in form order; the schema title, else the key; then Other Details');
    t.match(rows[0], { 'Event Type': 'fence', State: 'active', 'Fence damage: Length (m)': '12.5', 'Fence damage: Posts': '', 'Rhino sighting: How many': '', 'Other Details': '' });
    t.match(rows[1], { Title: 'Two, "big" ones', 'Rhino sighting: How many': '2', 'Rhino sighting: note': 'line one\nline two', Latitude: '-1.5', 'Reported By': 'admin', 'Other Details': '' });
    t.equal(rows[2]!['Rhino sighting: How many'], '', 'no value: an empty cell');
  });

  await t.test('the list filter applies (the client sends `filter`)', async (t) => {
    const only = parse((await download(`?filter=${encodeURIComponent(JSON.stringify({ event_type: ['fence'] }))}`)).text, { columns: true }) as Array<Record<string, string>>;
    t.equal(only.length, 1);
    t.same(Object.keys(only[0]!).slice(13), ['Fence damage: Length (m)', 'Fence damage: Posts', 'Other Details'], 'only the types present get columns');
    const boxed = parse((await download('?bbox=36,-2,37,-1')).text, { columns: true }) as unknown[];
    t.equal(boxed.length, 1);
    const none = await download(`?filter=${encodeURIComponent(JSON.stringify({ event_type: ['nothing'] }))}`);
    t.equal(none.status, 200);
    t.equal((parse(none.text) as unknown[]).length, 1, 'the header alone');
    t.equal((await download('?filter=nope')).status, 400);
  });

  await t.test('keys the type\'s schema does not name: one Other Details column, as JSON (nothing is lost)', async (t) => {
    // A v1 type's schema without additionalProperties stays open (as the original's): its events may hold other keys.
    const v1 = JSON.stringify({
      schema: { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Camp', type: 'object', properties: { guards: { type: 'integer', title: 'Guards' }, tents: { type: 'integer' } } },
      definition: ['tents', { key: 'guards' }],
    });
    const created = await s.json('/api/v1.0/activity/events/eventtypes', send('POST', { value: 'camp_v1', display: 'Camp', schema: v1 }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    await post({ event_type: 'camp_v1', event_details: { guards: 3, cook: 'Ann', supplies: { water: 10 }, tags: ['a', 'b'] }, time: '2026-11-20T10:00:00+00:00' });
    const file = await download(`?filter=${encodeURIComponent(JSON.stringify({ event_type: ['camp_v1', 'sighting'] }))}`);
    t.equal(file.status, 200, file.text);
    const rows = parse(file.text, { columns: true }) as Array<Record<string, string>>;
    t.same(Object.keys(rows[0]!).slice(13), ['Camp: tents', 'Camp: Guards', 'Rhino sighting: note', 'Rhino sighting: How many', 'Other Details'], 'v1: the definition\'s order');
    const camp = rows.find((row) => row['Event Type'] === 'camp_v1')!;
    t.equal(camp['Camp: Guards'], '3');
    t.equal(camp['Camp: tents'], '');
    t.same(JSON.parse(camp['Other Details']!), { cook: 'Ann', supplies: { water: 10 }, tags: ['a', 'b'] }, 'the unnamed keys with their values, as JSON');
    t.ok(rows.filter((row) => row['Event Type'] === 'sighting').every((row) => row['Other Details'] === ''), 'nothing else: an empty cell');
    // A v1 type without a readable schema (or a type with none): every detail in Other Details.
    const replaced = await s.json('/api/v1.0/activity/events/eventtypes/camp_v1', send('PUT', { value: 'camp_v1', display: 'Camp', schema: '{"schema": {}}' }, token));
    t.equal(replaced.status, 200, JSON.stringify(replaced.body));
    const bare = parse((await download(`?filter=${encodeURIComponent(JSON.stringify({ event_type: ['camp_v1'] }))}`)).text, { columns: true }) as Array<Record<string, string>>;
    t.same(Object.keys(bare[0]!).slice(13), ['Other Details'], 'the current schema decides the columns');
    t.same(JSON.parse(bare[0]!['Other Details']!), { guards: 3, cook: 'Ann', supplies: { water: 10 }, tags: ['a', 'b'] });
  });

  await t.test('many batches: every event once, in order', async (t) => {
    const bodies = Array.from({ length: 2100 }, (_, i) => ({ event_type: 'fence', event_details: { metres: i }, time: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace('Z', '+00:00') }));
    for (let i = 0; i < bodies.length; i += 500) t.equal((await s.json(E, send('POST', bodies.slice(i, i + 500), token))).status, 201);
    const rows = parse((await download(`?filter=${encodeURIComponent(JSON.stringify({ event_type: ['fence'] }))}`)).text, { columns: true }) as Array<Record<string, string>>;
    t.equal(rows.length, 2101);
    t.equal(new Set(rows.map((row) => row.Id)).size, 2101, 'no repeats across batches');
    const metres = rows.slice(1).map((row) => Number(row['Fence damage: Length (m)']));
    t.same(metres.slice(0, 3), [2099, 2098, 2097], 'newest first, as the list');
  });

  await t.test('needs export_event; a file in the earthranger profile too', async (t) => {
    const { admin } = s.server.runtime;
    await admin.createUser({ tenant: 'default', username: 'viewer', password: 'Quiet-Harbor-Lamp-42', superuser: false });
    const viewer = (await s.login('viewer', 'Quiet-Harbor-Lamp-42')).access_token;
    t.equal((await download('', viewer)).status, 403);
    t.equal((await s.request(EXPORT)).status, 401);
    await admin.createClient({ tenant: 'default', clientId: 'er_export', grants: ['password'], profile: 'earthranger' });
    const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_export', username: 'admin', password: ADMIN_PASSWORD }) });
    const er = String(((await response.json()) as { access_token: string }).access_token);
    const file = await download('', er);
    t.equal(file.status, 200);
    t.match(file.text, /^Serial Number,Id,/, 'raw CSV, not wrapped');
  });
});
