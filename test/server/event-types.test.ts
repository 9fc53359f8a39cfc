import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { fixtureJson, fixtureText, sharedDir } from '../helpers/fixtures.js';

const V2 = '/api/v2.0/activity/eventtypes';
const V1 = '/api/v1.0/activity/events/eventtypes';

t.test(`event types: v2 catalog, categories, v1 text, migration (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const every = JSON.parse(fixtureText('schemas/every-field-kind.v2.json').replaceAll('https://fieldops.example', s.url));
  for (const choice of fixtureJson<Array<Record<string, unknown>>>('schemas/choices.json')) {
    t.equal((await s.json('/api/v2.0/choices', send('POST', choice, token))).status, 201);
  }

  await t.test('categories and v2 CRUD with event attributes', async (t) => {
    t.equal((await s.json('/api/v2.0/activity/eventcategories', send('POST', { value: 'monitoring', display: 'Monitoring' }, token))).status, 201);
    const created = await s.json(V2, send('POST', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', default_state: 'active', geometry_type: 'Point', schema: every }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.match(created.body, { value: 'wildlife_sighting', category: 'monitoring', default_state: 'active', geometry_type: 'Point', is_collection: false, readonly: false, version: '2' });
    t.notOk('schema' in created.body);
    const badCategory = await s.json(V2, send('POST', { value: 'x1', display: 'X', category: 'nope' }, token));
    t.equal(badCategory.status, 400);
    t.equal(badCategory.body.category[0].code, 'invalid_choice');
    const badFields = await s.json(V2, send('POST', { value: 'x2', display: 'X', default_state: 'open', geometry_type: 'Line', version: '1' }, token));
    t.same(Object.keys(badFields.body).filter((k) => k !== 'status').sort(), ['default_state', 'geometry_type', 'version']);
    const categories = await s.json('/api/v2.0/activity/eventcategories', { token });
    t.same(categories.body.map((c: { value: string }) => c.value), ['monitoring']);
    t.equal((await s.json(`${V2}/wildlife_sighting`, { token })).body.display, 'Wildlife sighting', 'dual lookup by value');
    t.equal((await s.json(`${V2}/${created.body.id}?include_schema=true`, { token })).body.schema.json.$schema, 'https://json-schema.org/draft/2020-12/schema', 'and by id');
  });

  await t.test('the list ETag also moves when any choice changes; the detail ETag does not', async (t) => {
    const list = await s.request(V2, { token });
    const detail = await s.request(`${V2}/wildlife_sighting`, { token });
    t.equal((await s.request(V2, { token, headers: { 'If-None-Match': list.headers.get('etag')! } })).status, 304);
    t.equal((await s.json('/api/v2.0/choices', send('POST', { field: 'fixture_species', value: 'lion', display: 'Lion' }, token))).status, 201);
    t.equal((await s.request(V2, { token, headers: { 'If-None-Match': list.headers.get('etag')! } })).status, 200, 'a new choice: mobile clients re-pull schemas');
    t.equal((await s.request(`${V2}/wildlife_sighting`, { token, headers: { 'If-None-Match': detail.headers.get('etag')! } })).status, 304);
    t.ok(list.headers.get('last-modified'));
  });

  await t.test('schema reads: pre_render with choices, 422, 207', async (t) => {
    const rendered = await s.json(`${V2}/wildlife_sighting/schema?pre_render=true`, { token });
    t.equal(rendered.status, 200);
    const text = JSON.stringify(rendered.body);
    t.notMatch(text, /choices\.json/, 'every choice reference is resolved');
    t.match(text, /"const":"lion","title":"Lion"/);
    await s.json(V2, send('POST', { value: 'empty_type', display: 'Empty' }, token));
    t.same((await s.json(`${V2}/empty_type/schema`, { token })).body, { json: {}, ui: {} });
    await s.server.runtime.database.knex('event_types').where({ value: 'empty_type' }).update({ schema: 'null' });
    const broken = await s.json(`${V2}/empty_type/schema`, { token });
    t.equal(broken.status, 422);
    t.equal(broken.body.errors[0].code, 'no_schema_defined');
    const batch = await s.json(`${V2}/schemas`, { token });
    t.equal(batch.status, 207);
    t.equal(batch.body.results.find((r: { value: string }) => r.value === 'wildlife_sighting').status, 'success');
    await s.request(`${V2}/empty_type`, { method: 'DELETE', token });
    t.equal((await s.json(`${V2}/schemas`, { token })).status, 200);
    const invalid = await s.json(V2, send('POST', { value: 'bad_schema', display: 'Bad', schema: { json: { type: 'object' }, ui: {}, readonly: true } }, token));
    t.equal(invalid.status, 400);
    t.ok(invalid.body.schema.length >= 2, 'every schema error at once');
    t.equal((await s.json(`${V2}/bad_schema`, { token })).status, 404, 'nothing saved');
  });

  await t.test('v1 event types: stored as text, rendered with choices, malformed tags refused with positions', async (t) => {
    const text = fixtureText('schemas/fence-patrol.v1.txt');
    const created = await s.json(V1, send('POST', { value: 'fence_patrol_rep', display: 'Fence patrol', schema: text }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.equal(created.body.schema, text, 'the text is kept verbatim');
    t.equal(created.body.version, '1');
    const rendered = await s.json('/api/v1.0/activity/events/schema/eventtype/fence_patrol_rep', { token });
    t.equal(rendered.status, 200);
    const damage = rendered.body.schema.properties.fencerep_damage;
    const expected = fixtureJson<Array<{ field: string; value: string; ordernum: number }>>('schemas/choices.json')
      .filter((c) => c.field === 'fixture_damage')
      .sort((a, b) => a.ordernum - b.ordernum)
      .map((c) => c.value);
    t.same(damage.enum, expected, 'tags replaced by the active choices, in display order');
    const broken = await s.json(V1, send('POST', { value: 'broken', display: 'Broken', schema: fixtureText('schemas/broken-tags.v1.txt') }, token));
    t.equal(broken.status, 400);
    t.ok(broken.body.schema.every((issue: { hints: string[] }) => issue.hints.some((hint) => /line \d+, column \d+/.test(hint))), 'each problem says where');
    t.equal((await s.json(`${V1}/broken`, { token })).status, 404);
    t.equal((await s.json(V1, { token })).body.length, 1);
  });

  await t.test('migration: dry run reports, real run converts all or nothing', async (t) => {
    const dry = await s.json(`${V2}/migrate`, send('POST', { event_types: ['fence_patrol_rep'] }, token));
    t.equal(dry.status, 200);
    t.equal(dry.body.applied, false, 'dry_run defaults to true');
    const [entry] = dry.body.results;
    t.equal(entry.event_type, 'fence_patrol_rep');
    t.same(entry.errors, []);
    t.equal(entry.v2_schema.json.$schema, 'https://json-schema.org/draft/2020-12/schema');
    t.equal((await s.json(`${V2}/fence_patrol_rep`, { token })).status, 404, 'a dry run changes nothing');
    const mixed = await s.json(`${V2}/migrate`, send('POST', { event_types: ['fence_patrol_rep', 'no_such_type'], dry_run: false }, token));
    t.equal(mixed.status, 400, 'one failure refuses the whole run');
    t.equal(mixed.body.applied, false);
    t.equal((await s.json(`${V2}/fence_patrol_rep`, { token })).status, 404, 'all or nothing');
    const real = await s.json(`${V2}/migrate`, send('POST', { event_types: ['fence_patrol_rep'], dry_run: false }, token));
    t.equal(real.status, 200, JSON.stringify(real.body));
    t.equal(real.body.applied, true);
    const v2 = await s.json(`${V2}/fence_patrol_rep?include_schema=true`, { token });
    t.equal(v2.status, 200);
    t.same(v2.body.schema, real.body.results[0].v2_schema);
    t.equal((await s.json(`${V1}/fence_patrol_rep`, { token })).body.migrated_to, v2.body.id);
    const rerun = await s.json(`${V2}/migrate`, send('POST', { event_types: ['fence_patrol_rep'], dry_run: false }, token));
    t.equal(rerun.status, 200, 'a second run replaces the schema of the existing v2 type');
    t.equal((await s.json(`${V2}/migrate`, send('POST', { event_types: [] }, token))).status, 400);
  });

  await t.test('the v1 corpus through the endpoint (dry run)', async (t) => {
    const shared = sharedDir();
    if (!shared) return void t.pass('skipped: no ../shared beside this checkout', { skip: 'no shared corpus' });
    const dir = path.join(shared, 'corpus/earthranger');
    const files = fs.readdirSync(dir).filter((name) => name.endsWith('.v1.txt'));
    t.ok(files.length > 0);
    for (const [index, file] of files.entries()) {
      const value = `corpus_${index}`;
      const created = await s.json(V1, send('POST', { value, display: file.slice(0, 200), schema: fs.readFileSync(path.join(dir, file), 'utf8') }, token));
      if (created.status !== 201) {
        t.match(file, /BAD_SCHEMA/, `${file}: only the known-bad document is refused (${created.status})`);
        continue;
      }
      const migrated = await s.json(`${V2}/migrate`, send('POST', { event_types: [value] }, token));
      t.equal(migrated.status, 200, file);
      t.same(migrated.body.results[0].errors, [], `${file}: migrates without errors`);
    }
  });

  await t.test('permissions and tenancy', async (t) => {
    const { admin } = s.server.runtime;
    await admin.createUser({ tenant: 'default', username: 'et.viewer', password: 'Oxpecker-Pass-9', permissions: ['view_eventtype'] });
    const viewer = (await s.login('et.viewer', 'Oxpecker-Pass-9')).access_token;
    t.equal((await s.json(V2, { token: viewer })).status, 200);
    t.equal((await s.json(V2, send('POST', { value: 'v', display: 'V' }, viewer))).status, 403);
    t.equal((await s.json(`${V2}/migrate`, send('POST', { event_types: ['fence_patrol_rep'], dry_run: false }, viewer))).status, 403);
    t.equal((await s.json(`${V2}/migrate`, send('POST', { event_types: ['fence_patrol_rep'] }, viewer))).status, 200, 'a dry run needs only view');
    await admin.createTenant('west');
    await admin.createUser({ tenant: 'west', username: 'west.admin', password: 'Western-Sky-Pass-2', superuser: true });
    const west = (await s.login('west.admin', 'Western-Sky-Pass-2')).access_token;
    t.equal((await s.json(`${V2}/wildlife_sighting`, { token: west })).status, 404);
    t.equal((await s.json(`${V1}/fence_patrol_rep`, { token: west })).status, 404);
    t.same((await s.json(V2, { token: west })).body, []);
  });
});
