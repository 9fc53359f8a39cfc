import t from 'tap';
import { normaliseDocument } from '../../schema/index.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

/** CONTRACT §11, "in both profiles". */
t.test('normalisation touches COLLECTION arrays only and drops legacy ui choices', async (t) => {
  const item = { type: 'object', properties: { filename: { type: 'string' }, content_type: { type: 'string' }, size: { type: 'integer' } } };
  const doc = {
    json: { type: 'object', properties: { photos: { type: 'array', items: item }, repairs: { type: 'array', items: { type: 'object', properties: { metres: { type: 'number' } } } }, kind: { type: 'string' } } },
    ui: {
      fields: {
        photos: { type: 'ATTACHMENT', allowableFileTypes: ['image'], choices: ['old'] },
        repairs: { type: 'COLLECTION' },
        kind: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['kind'] } },
        legacy: { type: 'CHOICE_LIST', choices: [{ value: 'a', label: 'A' }] },
      },
    },
  };
  const out = normaliseDocument(doc) as any;
  t.same(out.json.properties.photos, doc.json.properties.photos, 'the ATTACHMENT array is left as sent');
  t.equal(out.json.properties.repairs.unevaluatedItems, false, 'the COLLECTION array is closed');
  t.notOk('choices' in out.ui.fields.photos, 'choices on a field that is not a choice list: dropped');
  t.notOk('choices' in out.ui.fields.legacy, 'a legacy inline choices list: dropped');
  t.same(out.ui.fields.kind.choices, doc.ui.fields.kind.choices, 'a choices object of a CHOICE_LIST is kept');
  t.same(normaliseDocument(out), out, 'idempotent');
  t.notOk('unevaluatedItems' in (doc.json.properties.repairs as Record<string, unknown>), 'the input is not modified');
});

t.test(`updated_fields is the list of changed keys in both profiles (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  await admin.createClient({ tenant: 'default', clientId: 'er', grants: ['password'], profile: 'earthranger' });
  const plain = (await s.login()).access_token;
  const er = String(((await (await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er', username: 'admin', password: 'Test-Superuser-Passphrase-7' }) })).json()) as { access_token: string }).access_token);
  const V2 = '/api/v2.0/activity/eventtypes';
  t.equal((await s.json(V2, send('POST', { value: 'fence', display: 'Fence' }, plain))).status, 201);
  t.equal((await s.json(`${V2}/fence`, send('PATCH', { display: 'Fence line', default_priority: 200 }, plain))).status, 200);
  const fieldops = (await s.json(`${V2}/fence/updates`, { token: plain })).body.results;
  const later = fieldops.find((entry: { action: string }) => entry.action === 'updated');
  t.same([...later.updated_fields].sort(), ['default_priority', 'display']);
  t.same(later.changes, { display: 'Fence line', default_priority: 200 }, 'fieldops: the values under changes');
  const original = (await s.json(`${V2}/fence/updates`, { token: er })).body.data.results;
  const added = original.find((entry: { action: string }) => entry.action === 'added');
  const updated = original.find((entry: { action: string }) => entry.action === 'updated');
  t.same(added.updated_fields, [], 'earthranger: [] on added');
  t.same([...updated.updated_fields].sort(), ['default_priority', 'display']);
  t.notOk('changes' in updated, 'earthranger: no changes member');
  t.match(updated.user, { username: 'admin', content_type: 'accounts.user' });
});
