/**
 * Issue 28 §4, on both databases: every event stores the revision (history `sequence`) of its v2
 * type its details were written against; `?render=as_recorded` presents the details through that
 * revision; no profile ever drops a stored detail key a later revision no longer describes.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { ADMIN_PASSWORD, dialect, type TestServer } from '../helpers/server.js';
import { startTestServer } from '../helpers/server.js';

const E = '/api/v1.0/activity/events';
const ONE = '/api/v1.0/activity/event';
const TYPE = '/api/v2.0/activity/eventtypes/spotting';
const SPECIES = '/api/v2.0/schemas/choices.json?field=species';

type Json = Record<string, any>;

async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_schema_revision', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(`${s.url}/oauth2/token/`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', client_id: 'er_schema_revision', username: 'admin', password: ADMIN_PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`earthranger login: ${response.status}`);
  return String(((await response.json()) as Json).access_token);
}

/** Revision 2's form: `colour` (inline choices with titles) placed left under `count`, `species` right, `notes` unplaced. */
function schemaV2(colourTitle: string) {
  return {
    json: {
      $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false,
      properties: {
        species: { type: 'string', title: 'Species', anyOf: [{ $ref: SPECIES }] },
        notes: { type: 'string', title: 'Notes' },
        colour: { type: 'string', title: colourTitle, oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
        count: { type: 'integer', title: 'Count' },
      },
    },
    ui: {
      fields: {}, headers: {}, order: ['main'],
      sections: { main: { label: 'Main', columns: 2, isActive: true, leftColumn: [{ name: 'count', type: 'field' }, { name: 'colour', type: 'field' }], rightColumn: [{ name: 'species', type: 'field' }] } },
    },
  };
}

/** Revision 3: `colour` dropped, the root open (older events keep their key and may still be written). */
function schemaV3() {
  const doc = schemaV2('unused');
  const { colour: _colour, ...properties } = doc.json.properties;
  const { additionalProperties: _closed, ...json } = doc.json;
  return {
    json: { ...json, properties: { ...properties, count: { type: 'integer', title: 'Head count' } } },
    ui: { ...doc.ui, sections: { main: { ...doc.ui.sections.main, leftColumn: [{ name: 'count', type: 'field' }] } } },
  };
}

const keys = (rendered: Json[]) => rendered.map((entry) => entry.key);

t.test(`events keep displaying: schema_revision and ?render=as_recorded (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const er = await earthRangerToken(s);
  for (const [value, display] of [['lion', 'Lion'], ['eland', 'Eland']]) t.equal((await s.json('/api/v2.0/choices', send('POST', { field: 'species', value, display }, token))).status, 201);
  const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'spotting', display: 'Spotting', schema: schemaV2('Colour (first)') }, token));
  t.equal(created.status, 201, JSON.stringify(created.body));
  const v2 = await s.json(TYPE, send('PATCH', { schema: schemaV2('Colour') }, token));
  t.equal(v2.status, 200, JSON.stringify(v2.body));

  const details = { species: 'lion', notes: 'by the river', colour: 'r', count: 3 };
  const recorded = await s.json(E, send('POST', { event_type: 'spotting', event_details: details }, token));
  t.equal(recorded.status, 201, JSON.stringify(recorded.body));
  t.equal(recorded.body.schema_revision, 2, 'recorded against revision 2');
  const keptId = recorded.body.id as string;
  const moved = await s.json(E, send('POST', { event_type: 'spotting', event_details: { species: 'eland', colour: 'g', count: 1 } }, token));
  t.equal(moved.status, 201);
  const movedId = moved.body.id as string;

  const v3 = await s.json(TYPE, send('PATCH', { schema: schemaV3() }, token));
  t.equal(v3.status, 200, JSON.stringify(v3.body));
  const updates = await s.json(`${TYPE}/updates`, { token });
  t.equal(updates.status, 200);

  await t.test('a field dropped since still shows in event_details, in both profiles', async (t) => {
    const detail = await s.json(`${ONE}/${keptId}`, { token });
    t.same(detail.body.event_details, details, 'fieldops: every stored key');
    t.equal(detail.body.schema_revision, 2);
    t.notOk('rendered_details' in detail.body, 'nothing rendered unless asked');
    const erDetail = await s.json(`${ONE}/${keptId}`, { token: er });
    t.equal(erDetail.status, 200);
    t.same(erDetail.body.data.event_details, details, 'earthranger: the dropped field too');
    t.notOk('schema_revision' in erDetail.body.data, 'schema_revision is fieldops-only');
    const erList = await s.json(`${E}?render=as_recorded`, { token: er });
    const listed = erList.body.data.results.find((e: Json) => e.id === keptId);
    t.same(listed.event_details, details, 'the earthranger list keeps it too');
    t.notOk('rendered_details' in listed, 'and carries no fieldops members');
  });

  await t.test('?render=as_recorded: the recorded revision\'s order, titles and choice names', async (t) => {
    const detail = await s.json(`${ONE}/${keptId}?render=as_recorded`, { token });
    t.equal(detail.status, 200, JSON.stringify(detail.body));
    t.same(detail.body.rendered_details, [
      { key: 'count', title: 'Count', value: 3, display: '3' },
      { key: 'colour', title: 'Colour', value: 'r', display: 'Red' },
      { key: 'species', title: 'Species', value: 'lion', display: 'Lion' },
      { key: 'notes', title: 'Notes', value: 'by the river', display: 'by the river' },
    ], 'ui left column, right column, then unplaced fields in schema order');
    t.same(detail.body.event_details, details, 'event_details unchanged beside it');
  });

  await t.test('a title-only change keeps the revision; a details change moves it to 3', async (t) => {
    const titled = await s.json(`${ONE}/${movedId}`, send('PATCH', { title: 'Renamed' }, token));
    t.equal(titled.status, 200, JSON.stringify(titled.body));
    t.equal(titled.body.schema_revision, 2, 'details untouched: still revision 2');
    const patched = await s.json(`${ONE}/${movedId}`, send('PATCH', { event_details: { species: 'eland', colour: 'g', count: 2 } }, token));
    t.equal(patched.status, 200, JSON.stringify(patched.body));
    t.equal(patched.body.schema_revision, 3);
    const rendered = await s.json(`${ONE}/${movedId}?render=as_recorded`, { token });
    t.same(rendered.body.rendered_details, [
      { key: 'count', title: 'Head count', value: 2, display: '2' },
      { key: 'species', title: 'Species', value: 'eland', display: 'Eland' },
      { key: 'colour', title: 'colour', value: 'g', display: 'g' },
    ], 'the dropped key trails, titled by its key');
  });

  await t.test('v1 events: null revision, every key rendered under its own name', async (t) => {
    const v1 = JSON.stringify({ schema: { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Camp', type: 'object', properties: { guards: { type: 'integer', title: 'Guards' } } }, definition: ['guards'] });
    t.equal((await s.json('/api/v1.0/activity/events/eventtypes', send('POST', { value: 'camp_v1', display: 'Camp', schema: v1 }, token))).status, 201);
    const camp = await s.json(E, send('POST', { event_type: 'camp_v1', event_details: { guards: 2 } }, token));
    t.equal(camp.status, 201, JSON.stringify(camp.body));
    t.equal(camp.body.schema_revision, null);
    const rendered = await s.json(`${ONE}/${camp.body.id}?render=as_recorded`, { token });
    t.same(rendered.body.rendered_details, [{ key: 'guards', title: 'guards', value: 2, display: '2' }]);
  });

  await t.test('an unknown render value is a 400 with the error body', async (t) => {
    for (const path of [`${ONE}/${keptId}?render=current`, `${E}?render=AS_RECORDED`, `${ONE}/${keptId}?render=as_recorded&render=x`]) {
      const bad = await s.json(path, { token });
      t.equal(bad.status, 400, path);
      t.ok(Array.isArray(bad.body.render), `${path}: the issue names the parameter (${JSON.stringify(bad.body)})`);
    }
  });

  await t.test('a list with render: each event through its own revision', async (t) => {
    const list = await s.json(`${E}?render=as_recorded&page_size=100`, { token });
    t.equal(list.status, 200, JSON.stringify(list.body));
    const byId = new Map<string, Json>(list.body.results.map((e: Json) => [e.id, e]));
    t.same(keys(byId.get(keptId)!.rendered_details), ['count', 'colour', 'species', 'notes'], 'revision 2');
    t.equal(byId.get(keptId)!.rendered_details[0].title, 'Count');
    t.same(keys(byId.get(movedId)!.rendered_details), ['count', 'species', 'colour'], 'revision 3');
    t.equal(byId.get(movedId)!.rendered_details[0].title, 'Head count');
    const plain = await s.json(E, { token });
    t.ok(plain.body.results.every((e: Json) => !('rendered_details' in e) && 'schema_revision' in e), 'without the parameter: schema_revision only');
  });
});
