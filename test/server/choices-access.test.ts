import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { TYPES, createType, sampleSchema, send } from '../helpers/catalog.js';

// Issue 13 item 9: reading a choice list (choices.json, and pre-rendering, which resolves
// references through the same read) needs view_choice, or the right to view a type whose
// schema references the list. A public client id alone reads nothing.
const JSON_URL = '/v2.0/schemas/choices.json';
const ET = '/api/v2.0/activity/eventtypes';

const eventSchema = {
  json: {
    $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false,
    properties: { species: { type: 'string', title: 'Species', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=species' }] } },
  },
  ui: { fields: { species: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['species'] } } }, sections: {}, order: [], headers: {} },
};

t.test(`choice lists are read with view_choice or through a type that references them (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const admin = s.server.runtime.admin;
  const token = (await s.login()).access_token;
  for (const [field, value] of [['species', 'lion'], ['species', 'eland'], ['informants', 'agent-k'], ['condition', 'good']]) {
    t.equal((await s.json('/api/v2.0/choices', send('POST', { field, value }, token))).status, 201);
  }
  t.equal((await s.json(ET, send('POST', { value: 'sighting', display: 'Sighting', schema: eventSchema }, token))).status, 201);
  await createType(s, token, { value: 'fence_check', display: 'Fence check', schema: sampleSchema('notes', '/api/v2.0/schemas/choices.json?field=condition') });

  const users: Array<[string, string[]]> = [
    ['c.nobody', []], ['c.viewer', ['view_choice']], ['c.events', ['view_eventtype']], ['c.patrols', ['view_patroltype']], ['c.reporter', ['add_event', 'view_event']],
  ];
  await admin.createClient({ tenant: 'default', clientId: 'public-map' });
  const tokens: Record<string, string> = {};
  for (const [username, permissions] of users) {
    await admin.createUser({ tenant: 'default', username, password: 'Sable-Antelope-Pass-4', permissions });
    tokens[username] = (await s.login(username, 'Sable-Antelope-Pass-4')).access_token;
  }
  const read = async (field: string, caller: string | null, extra = '') => (await s.json(`${JSON_URL}?field=${field}${extra}`, caller ? { token: tokens[caller] ?? caller } : {})).status;

  await t.test('choices.json answers as /api/v2.0/choices does, plus the referenced lists', async (t) => {
    t.equal(await read('informants', 'c.nobody'), 403, 'an authenticated user without rights: 403 (was 200)');
    t.equal((await s.json('/api/v2.0/choices', { token: tokens['c.nobody'] })).status, 403, 'the same as the choices list');
    t.equal(await read('informants', null, '&client_id=public-map'), 403, 'a public client id alone: 403 (was 200)');
    t.equal(await read('informants', null), 401, 'no credentials: 401');
    t.equal(await read('informants', 'c.viewer'), 200, 'view_choice reads any list');
    t.equal(await read('informants', token), 200, 'a superuser reads any list');
    t.equal(await read('species', 'c.events'), 200, 'view_eventtype reads a list an event type references');
    t.equal(await read('informants', 'c.events'), 403, '...but not a list no type references');
    t.equal(await read('species,informants', 'c.events'), 403, '...nor a mix');
    t.equal(await read('condition', 'c.events'), 403, 'a list only a patrol type references needs view_patroltype');
    t.equal(await read('condition', 'c.patrols'), 200, 'view_patroltype reads a list a patrol type references');
    t.equal(await read('species', 'c.patrols'), 403);
    t.equal(await read('species', 'c.reporter'), 403, 'add_event is not a read right');
  });

  await t.test('a new reference opens the list; removing it closes it again', async (t) => {
    const withInformants = structuredClone(eventSchema) as any;
    withInformants.json.properties.source = { type: 'string', title: 'Source', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=informants' }] };
    withInformants.ui.fields.source = { type: 'CHOICE_LIST', inputType: 'DROPDOWN', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['informants'] } };
    t.equal((await s.json(`${ET}/sighting`, send('PATCH', { schema: withInformants }, token))).status, 200);
    t.equal(await read('informants', 'c.events'), 200);
    t.equal((await s.json(`${ET}/sighting`, send('PATCH', { schema: eventSchema }, token))).status, 200);
    t.equal(await read('informants', 'c.events'), 403);
  });

  await t.test('pre_render resolves with the same rule', async (t) => {
    const events = await s.json(`${ET}/sighting/schema?pre_render=true`, { token: tokens['c.events'] });
    t.equal(events.status, 200);
    t.match(JSON.stringify(events.body.json.properties.species), /"lion"/, 'a viewer of the type sees its choices');
    const patrols = await s.json(`${TYPES}/fence_check/schema?pre_render=true`, { token: tokens['c.patrols'] });
    t.equal(patrols.status, 200);
    t.match(JSON.stringify(patrols.body.json.properties.species), /"good"/);
  });

  await t.test('validating event details does not depend on what the caller may read', async (t) => {
    const reporter = tokens['c.reporter']!;
    t.equal((await s.json('/api/v1.0/activity/events', send('POST', { event_type: 'sighting', event_details: { species: 'dragon' } }, reporter))).status, 400, 'an unknown choice is refused');
    t.equal((await s.json('/api/v1.0/activity/events', send('POST', { event_type: 'sighting', event_details: { species: 'lion' } }, reporter))).status, 201);
  });
});
