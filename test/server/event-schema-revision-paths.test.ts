/**
 * Issue 28 §4, on both databases: every write path that stores event details records the type's
 * current revision — the array form of POST, the batched push, a merged offline update, a
 * settled conflict — and a write that leaves type and details alone keeps the recorded one.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { CONFLICTS, E, ONE, createEvent, createSightingType, offline } from './merge/merge-support.js';

const PUSH = '/api/fieldops/v1/sync/push';
const TYPE = '/api/v2.0/activity/eventtypes/sighting';

type Json = Record<string, any>;

const schemaRevision = async (s: TestServer, token: string, id: string): Promise<unknown> => (await s.json(`${ONE}/${id}`, { token })).body.schema_revision;

t.test(`schema_revision on every write path (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await createSightingType(s, token);
  /** A new revision of the type (createSightingType's schema): only a's title changes. */
  const bumpType = async (title: string) => {
    const schema = {
      json: {
        $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, maxProperties: 2,
        properties: { a: { type: 'integer', title }, b: { type: 'integer', title: 'B' }, c: { type: 'integer', title: 'C' } },
      },
      ui: { fields: {}, sections: {}, order: [], headers: {} },
    };
    const answer = await s.json(TYPE, send('PATCH', { schema }, token));
    if (answer.status !== 200) throw new Error(`type patch: ${answer.status} ${JSON.stringify(answer.body)}`);
  };

  await t.test('the array form of POST and the batched push record revision 1', async (t) => {
    const many = await s.json(E, send('POST', [{ event_type: 'sighting', event_details: { a: 1 } }, { event_type: 'sighting', event_details: {} }], token));
    t.equal(many.status, 201, JSON.stringify(many.body));
    t.same(many.body.map((e: Json) => e.schema_revision), [1, 1]);
    const id = '6f1a2c3d-0000-4000-8000-00000000a001';
    const pushed = await s.json(PUSH, {
      method: 'POST', token, headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ entries: [{ key: 'create-1', op: 'event.create', body: { id, event_type: 'sighting', event_details: { b: 2 } } }] }),
    });
    t.equal(pushed.status, 200, JSON.stringify(pushed.body));
    t.equal(await schemaRevision(s, token, id), 1, 'pushed create');
  });

  // Events written at revision 1, before the type moves.
  const merged = await createEvent(s, token, { event_details: { a: 1 } });
  const stateOnly = await createEvent(s, token, { event_details: { a: 1 } });
  const settled = await createEvent(s, token, { event_details: { a: 1 } });
  t.equal((await s.json(`${ONE}/${settled.id}`, send('PATCH', { event_details: { a: 2 } }, token))).status, 200);
  t.equal((await s.json(`${ONE}/${settled.id}`, offline('PATCH', { event_details: { a: 3 } }, token, settled.revision, 'laptop-7'))).status, 200);
  const open = (await s.json(`${CONFLICTS}?status=open&record=${settled.id}`, { token })).body.conflicts as Json[];
  t.equal(open.length, 1, 'the laptop\'s a is held as a conflict');
  await bumpType('A (revision 2)');

  await t.test('a merged offline update of the details moves to revision 2; one of the state alone keeps 1', async (t) => {
    const answer = await s.json(`${ONE}/${merged.id}`, offline('PATCH', { event_details: { a: 7 } }, token, merged.revision));
    t.equal(answer.status, 200, JSON.stringify(answer.body));
    t.equal(answer.body.schema_revision, 2);
    const state = await s.json(`${ONE}/${stateOnly.id}`, offline('PATCH', { state: 'active' }, token, stateOnly.revision));
    t.equal(state.status, 200, JSON.stringify(state.body));
    t.equal(state.body.schema_revision, 1, 'details untouched: still revision 1');
  });

  await t.test('a conflict settled on a detail key records the revision current then', async (t) => {
    t.equal(await schemaRevision(s, token, settled.id), 1);
    const resolved = await s.json(`${CONFLICTS}/${open[0]!.id}/resolve`, send('POST', { choice: 'mine' }, token));
    t.equal(resolved.status, 200, JSON.stringify(resolved.body));
    const detail = await s.json(`${ONE}/${settled.id}?render=as_recorded`, { token });
    t.same(detail.body.event_details, { a: 3 });
    t.equal(detail.body.schema_revision, 2);
    t.same(detail.body.rendered_details, [{ key: 'a', title: 'A (revision 2)', value: 3, display: '3' }]);
  });
});
