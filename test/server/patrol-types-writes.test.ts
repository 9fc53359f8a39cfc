import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { TYPES, createType, sampleSchema, send } from '../helpers/catalog.js';

t.test(`patrol types: writes, schema rules, rank, history, permissions (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;

  await t.test('create: 201 without schema, empty envelope by default, duplicate value 400', async (t) => {
    const created = await s.json(TYPES, send('POST', { value: 'boat', display: 'Boat', icon: 'boat-icon', default_priority: 200 }, token));
    t.equal(created.status, 201);
    t.notOk('schema' in created.body, 'POST responses never contain schema');
    t.match(created.body, { value: 'boat', display: 'Boat', icon: 'boat-icon', icon_id: 'boat-icon', default_priority: 200, is_active: true, ordernum: null });
    t.equal(created.body.image_url, `${s.url}/static/sprite-src/boat-icon.svg`);
    const withSchema = await s.json(`${TYPES}/boat?include_schema=true`, { token });
    t.same(withSchema.body.schema, { json: {}, ui: {} });
    t.same((await s.json(`${TYPES}/boat/schema`, { token })).body, { json: {}, ui: {} }, 'the empty envelope is served with 200');
    const duplicate = await s.json(TYPES, send('POST', { value: 'boat', display: 'Again' }, token));
    t.equal(duplicate.status, 400);
    t.equal(duplicate.body.value[0].code, 'unique');
    const plain = await createType(s, token, { value: 'plain', display: 'Plain' });
    t.equal(plain.value, 'plain');
    t.equal((await s.json(`${TYPES}/plain`, { token })).body.icon_id, 'plain', 'icon_id falls back to the value');
  });

  await t.test('field validation: every error at once', async (t) => {
    const bad = await s.json(TYPES, send('POST', { value: 'a/b', display: 7, default_priority: 50, is_active: 'yes', ordernum: 3, extra: true }, token));
    t.equal(bad.status, 400);
    t.same(Object.keys(bad.body).sort(), ['default_priority', 'display', 'extra', 'is_active', 'status', 'value']);
    t.equal((await s.json(TYPES, send('POST', { display: 'No value' }, token))).body.value[0].code, 'required');
    t.equal((await s.json(TYPES, send('POST', { value: 'x'.repeat(51), display: 'Long' }, token))).body.value[0].code, 'max_length');
    t.equal((await s.json(TYPES, send('POST', [], token))).status, 400);
  });

  await t.test('writing a schema: rules 1-8', async (t) => {
    await createType(s, token, { value: 'schemed', display: 'Schemed', schema: sampleSchema() });
    const stored = (await s.json(`${TYPES}/schemed/schema`, { token })).body;
    t.equal(stored.json.unevaluatedProperties, false, 'rule 6: additionalProperties:false becomes unevaluatedProperties:false');
    t.notOk('additionalProperties' in stored.json);
    const before = JSON.stringify(stored);
    t.equal((await s.json(`${TYPES}/schemed`, send('PATCH', { display: 'Renamed' }, token))).status, 200);
    t.equal(JSON.stringify((await s.json(`${TYPES}/schemed/schema`, { token })).body), before, 'rule 2: omitted schema is unchanged');
    const replaced = await s.json(`${TYPES}/schemed`, send('PUT', { value: 'schemed', display: 'Schemed', schema: sampleSchema('remarks') }, token));
    t.equal(replaced.status, 200);
    t.notOk('schema' in replaced.body, 'rule 7: PUT responses never contain schema');
    const after = (await s.json(`${TYPES}/schemed/schema`, { token })).body;
    t.same(Object.keys(after.json.properties), ['remarks'], 'rule 3: replaced wholesale, no merge');
    const nullSchema = await s.json(`${TYPES}/schemed`, send('PATCH', { schema: null }, token));
    t.equal(nullSchema.status, 400, 'rule 5: null is 400');
    t.ok(Array.isArray(nullSchema.body.schema));
    const wrongUri = sampleSchema();
    wrongUri.json.$schema = 'http://json-schema.org/draft-07/schema#';
    const version = await s.json(`${TYPES}/schemed`, send('PATCH', { schema: wrongUri }, token));
    t.equal(version.status, 400, 'rule 4: $schema must be 2020-12');
    t.ok(version.body.schema.some((e: { code: string }) => e.code === 'schema_version_error'));
    const metaBroken = sampleSchema();
    (metaBroken.json.properties as Record<string, unknown>).notes = { type: 'strnig' };
    const meta = await s.json(`${TYPES}/schemed`, send('PATCH', { schema: metaBroken }, token));
    t.equal(meta.status, 400, 'rule 4: the meta-schema');
    t.ok(meta.body.schema.every((e: { pointer: string; hints: string[] }) => typeof e.pointer === 'string' && e.hints.length > 0));
    const dangling = sampleSchema();
    (dangling.ui.fields.notes as Record<string, unknown>).parent = 'nowhere';
    const ui = await s.json(`${TYPES}/schemed`, send('PATCH', { schema: dangling }, token));
    t.equal(ui.status, 400, 'rule 4: a ui section reference that is missing');
    t.ok(ui.body.schema.some((e: { code: string; category: string }) => e.code === 'ui_reference_error' && e.category === 'ui'));
    for (const key of ['readonly', 'icon_id', 'image_url']) {
      const extra = await s.json(`${TYPES}/schemed`, send('PATCH', { schema: { ...sampleSchema(), [key]: true } }, token));
      t.equal(extra.status, 400, `rule 8: envelope-root ${key}`);
      t.ok(Array.isArray(extra.body.schema), 'reported under the error key schema');
    }
    const auto = await s.json(`${TYPES}/schemed`, send('PATCH', { schema: { ...sampleSchema(), 'auto-generate': true } }, token));
    t.equal(auto.status, 200, 'rule 8: auto-generate is accepted');
    t.equal((await s.json(`${TYPES}/schemed/schema`, { token })).body['auto-generate'], true, 'and served');
    t.equal(JSON.stringify((await s.json(`${TYPES}/schemed/schema`, { token })).body.json.properties), JSON.stringify(sampleSchema().json.properties), 'nothing half-saved by the failures');
  });

  await t.test('stored documents that predate validation: 422 and batch failures', async (t) => {
    const { knex } = s.server.runtime.database;
    await createType(s, token, { value: 'legacy-empty', display: 'Legacy empty' });
    await createType(s, token, { value: 'legacy-array', display: 'Legacy array' });
    await knex('patrol_types').where({ value: 'legacy-empty' }).update({ schema: '{}' });
    await knex('patrol_types').where({ value: 'legacy-array' }).update({ schema: '[1,2]' });
    const empty = await s.json(`${TYPES}/legacy-empty/schema`, { token });
    t.equal(empty.status, 422);
    t.equal(empty.body.errors[0].code, 'no_schema_defined');
    const array = await s.json(`${TYPES}/legacy-array/schema`, { token });
    t.equal(array.status, 422);
    t.equal(array.body.errors[0].code, 'schema_structure_error');
    const batch = await s.json(`${TYPES}/schemas`, { token });
    t.equal(batch.status, 207);
    t.equal(batch.body.count, batch.body.results.length);
    const byValue = Object.fromEntries(batch.body.results.map((r: { value: string }) => [r.value, r]));
    t.equal(byValue['legacy-empty'].status, 'failure');
    t.ok(byValue['legacy-empty'].errors.length > 0);
    t.equal(byValue.boat.status, 'success');
    t.notOk('errors' in byValue.boat);
    await knex('patrol_types').whereIn('value', ['legacy-empty', 'legacy-array']).delete();
    t.equal((await s.json(`${TYPES}/schemas`, { token })).status, 200, 'all success: 200');
  });

  await t.test('pre_render resolves choices with the caller\'s rights; unresolvable references become {}', async (t) => {
    for (const [value, display] of [['lion', 'Lion'], ['eland', 'Eland']]) {
      t.equal((await s.json('/api/v2.0/choices', send('POST', { field: 'species', value, display }, token))).status, 201);
    }
    const local = `${s.url}/api/v2.0/schemas/choices.json?field=species`;
    await createType(s, token, { value: 'wildlife', display: 'Wildlife', schema: sampleSchema('notes', local) });
    const raw = (await s.json(`${TYPES}/wildlife/schema`, { token })).body;
    t.same(raw.json.properties.species.anyOf, [{ $ref: local }], 'raw by default');
    const rendered = (await s.json(`${TYPES}/wildlife/schema?pre_render=true`, { token })).body;
    t.same(rendered.json.properties.species.anyOf, [{ const: 'eland', title: 'Eland' }, { const: 'lion', title: 'Lion' }]);
    t.notOk('unevaluatedProperties' in rendered.json, 'the root unevaluatedProperties is dropped');
    const oneOf = (await s.json(`${TYPES}/wildlife/schema?pre_render=true&s_format=oneOf`, { token })).body;
    t.same(oneOf.json.properties.species.oneOf, [{ const: 'eland', title: 'Eland' }, { const: 'lion', title: 'Lion' }]);
    const asEnum = (await s.json(`${TYPES}/wildlife/schema?pre_render=true&s_format=enum`, { token })).body;
    t.same(asEnum.json.properties.species.enum, ['eland', 'lion']);
    t.same(asEnum.json.properties.species['x-enumExtra'], { eland: { display: 'Eland' }, lion: { display: 'Lion' } });
    t.equal((await s.json(`${TYPES}/wildlife/schema?pre_render=true&s_format=xml`, { token })).status, 400);
    // CONTRACT §11: resolved by its path on any host; nothing is fetched.
    await createType(s, token, { value: 'moved', display: 'Moved', schema: sampleSchema('notes', 'https://elsewhere.example/api/v2.0/schemas/choices.json?field=species') });
    const moved = (await s.json(`${TYPES}/moved/schema?pre_render=true`, { token })).body;
    t.same(moved.json.properties.species.anyOf, [{ const: 'eland', title: 'Eland' }, { const: 'lion', title: 'Lion' }], 'another host: resolved by path');
    await s.json(`${TYPES}/moved`, send('DELETE', {}, token));
    await createType(s, token, { value: 'remote', display: 'Remote', schema: sampleSchema('notes', 'https://elsewhere.example/api/v2.0/schemas/choices.json?field=no_such_list') });
    const remote = await s.json(`${TYPES}/remote/schema?pre_render=true`, { token });
    t.equal(remote.status, 200, 'an unknown list does not fail the request');
    t.same(remote.body.json.properties.species, {});
    const batch = await s.json(`${TYPES}/schemas?pre_render=true`, { token });
    t.equal(batch.status, 207);
    const remoteEntry = batch.body.results.find((r: { value: string }) => r.value === 'remote');
    t.equal(remoteEntry.status, 'partial');
    t.equal(remoteEntry.errors[0].code, 'unresolvable_reference');
    await s.json(`${TYPES}/remote`, send('DELETE', {}, token));
  });

  await t.test('deactivation: hidden from default reads, reachable by writes and include_inactive', async (t) => {
    await s.json(`${TYPES}/plain`, send('PATCH', { is_active: false }, token));
    for (const path of ['', '/schema', '/updates']) {
      t.equal((await s.json(`${TYPES}/plain${path}`, { token })).status, 404, `detail${path} is 404`);
      t.equal((await s.json(`${TYPES}/plain${path}?include_inactive=true`, { token })).status, 200, `detail${path} with include_inactive`);
    }
    t.notOk((await s.json(TYPES, { token })).body.some((type: { value: string }) => type.value === 'plain'));
    t.notOk((await s.json(`${TYPES}/schemas`, { token })).body.results.some((r: { value: string }) => r.value === 'plain'));
    t.equal((await s.json(`${TYPES}/plain`, send('PATCH', { display: 'Still writable' }, token))).status, 200);
    t.equal((await s.json(`${TYPES}/plain`, send('PATCH', { is_active: true }, token))).status, 200);
  });

  await t.test('rank: midpoints, front, rebalancing that leaves siblings\' updated_at alone', async (t) => {
    const order = async () => ((await s.json(`${TYPES}?include_inactive=true`, { token })).body as Array<{ value: string; ordernum: number | null; updated_at: string; id: string }>);
    await createType(s, token, { value: 'extra1', display: 'Extra 1' });
    await createType(s, token, { value: 'extra2', display: 'Extra 2' });
    const ids = Object.fromEntries((await order()).map((type) => [type.value, type.id]));
    const rank = (value: string, before: string | null) => s.json(`${TYPES}/${value}/rank`, send('POST', { before_key: before ? ids[before] : null }, token));
    const first = await rank('wildlife', null);
    t.equal(first.status, 204);
    const afterFirst = await order();
    t.equal(afterFirst[0]!.value, 'wildlife', 'null moves to the front');
    t.ok(afterFirst.every((type) => type.ordernum !== null), 'null ordernums were numbered');
    const second = afterFirst[1]!;
    const third = afterFirst[2]!;
    const last = afterFirst.at(-1)!;
    await rank(last.value, third.value);
    const afterMove = await order();
    const movedType = afterMove.find((type) => type.value === last.value)!;
    t.equal(afterMove.indexOf(movedType), 2, 'placed before the named type');
    t.equal(movedType.ordernum, (second.ordernum! + third.ordernum!) / 2, 'the midpoint of its new neighbours');
    const afterBoat = afterMove;
    // Squeeze one gap: schemed and plain take turns moving before the anchor, halving the gap
    // each time, until it falls below 1e-4 and forces a renumbering of the catalog.
    const anchorType = afterMove.filter((type) => !['schemed', 'plain'].includes(type.value))[1]!;
    const anchorBefore = anchorType.updated_at;
    let moved = 'schemed';
    for (let i = 0; i < 20; i++) {
      t.equal((await rank(moved, anchorType.value)).status, 204);
      moved = moved === 'schemed' ? 'plain' : 'schemed';
    }
    const final = await order();
    const ordernums = final.map((type) => type.ordernum!);
    t.same(ordernums, [...ordernums].sort((a, b) => a - b), 'a consistent order');
    const anchorIndex = final.findIndex((type) => type.value === anchorType.value);
    t.same(final.slice(anchorIndex - 2, anchorIndex).map((type) => type.value).sort(), ['plain', 'schemed'], 'both sit right before the anchor');
    t.ok(final[anchorIndex]!.ordernum! - final[anchorIndex - 1]!.ordernum! >= 1e-4 / 2, 'the gap was restored by renumbering');
    t.ok(final.filter((type) => Number.isInteger(type.ordernum)).length >= final.length - 2, 'the others renumbered 1..N');
    t.equal(final[anchorIndex]!.updated_at, anchorBefore, 'renumbered siblings keep their updated_at');
    t.equal((await rank('boat', 'boat')).status, 400, 'before itself');
    t.equal((await s.json(`${TYPES}/boat/rank`, send('POST', { before_key: '00000000-0000-4000-8000-000000000000' }, token))).status, 400, 'unknown before_key');
    t.equal((await s.json(`${TYPES}/boat/rank`, send('POST', {}, token))).status, 400, 'missing before_key');
  });

  await t.test('history: newest first, create is a snapshot, later entries only changed fields', async (t) => {
    const history = await s.json(`${TYPES}/schemed/updates?page_size=2`, { token });
    t.equal(history.status, 200);
    t.ok(history.body.count >= 2);
    const [latest] = history.body.results;
    t.equal(latest.updated_fields.length, 1, 'only the changed field');
    t.same(Object.keys(latest.changes), latest.updated_fields, 'its value under changes');
    t.equal(latest.user.username, 'admin');
    t.ok(history.body.next);
    const all = await s.json(`${TYPES}/schemed/updates?page_size=100`, { token });
    const sequences = all.body.results.map((entry: { sequence: number }) => entry.sequence);
    t.same(sequences, [...sequences].sort((a: number, b: number) => b - a), 'newest first');
    t.ok(all.body.results.some((entry: { updated_fields?: string[] }) => JSON.stringify(entry.updated_fields ?? []) === '["ordernum"]'), 'rank entries list ordernum alone');
    t.ok(all.body.results.some((entry: { updated_fields?: string[] }) => JSON.stringify(entry.updated_fields ?? []) === '["display"]'), 'a display change lists display alone');
    const created = all.body.results.at(-1);
    t.equal(created.action, 'created');
    t.notOk('updated_fields' in created);
    t.equal(created.snapshot.value, 'schemed');
    t.equal((await s.json(`${TYPES}/schemed/updates?page=999`, { token })).status, 404, 'a page past the end');
  });

  await t.test('permissions: view for reads, add/change/delete for writes', async (t) => {
    await admin.createUser({ tenant: 'default', username: 'reader', password: 'Weaver-Bird-Pass-5', permissions: ['view_patrol'] });
    await admin.createUser({ tenant: 'default', username: 'nobody', password: 'Weaver-Bird-Pass-6', permissions: [] });
    const reader = (await s.login('reader', 'Weaver-Bird-Pass-5')).access_token;
    const nobody = (await s.login('nobody', 'Weaver-Bird-Pass-6')).access_token;
    t.equal((await s.json(TYPES, { token: reader })).status, 200, 'view_patrol reads');
    t.equal((await s.json(`${TYPES}/boat/updates`, { token: reader })).status, 200);
    t.equal((await s.json(TYPES, { token: nobody })).status, 403);
    t.equal((await s.json(TYPES)).status, 401);
    t.equal((await s.json(TYPES, send('POST', { value: 'x1', display: 'X' }, reader))).status, 403);
    t.equal((await s.json(`${TYPES}/boat`, send('PATCH', { display: 'X' }, reader))).status, 403);
    t.equal((await s.json(`${TYPES}/boat`, send('DELETE', {}, reader))).status, 403);
    t.equal((await s.json(`${TYPES}/boat/rank`, send('POST', { before_key: null }, reader))).status, 403);
    await admin.grant('reader', ['delete_patroltype']);
    t.equal((await s.request(`${TYPES}/boat`, { method: 'DELETE', token: reader })).status, 204);
    t.equal((await s.json(`${TYPES}/boat`, { token })).status, 404, 'deleted');
  });
});
