/**
 * The built-in `incident_collection` type is seeded on a tenant's first incident
 * (server/domain/event-types/built-in.ts). That catalog write must not store the request's
 * Idempotency-Key: a first incident that then fails leaves no key, so its retry is evaluated
 * again instead of replayed with no event (or another one). A batched push's keys alike. And a
 * tenant with a v1 `incident_collection` (imported EarthRanger data) keeps its own type.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { E, count, keyedJson, newKey, replayed } from './idempotency-support.js';

const V2 = '/api/v2.0/activity/eventtypes';
const V1 = '/api/v1.0/activity/events/eventtypes';
const PUSH = '/api/fieldops/v1/sync/push';
const INCIDENT = 'incident_collection';

/** A new tenant with a superuser of its own: its catalog has no incident type yet. */
async function freshTenant(s: TestServer, name: string): Promise<{ token: string; tenantId: string }> {
  const { admin } = s.server.runtime;
  const tenant = await admin.createTenant(name);
  const password = `Seed-${name}-Pass-1`;
  await admin.createUser({ tenant: name, username: `${name}.admin`, password, superuser: true });
  return { token: (await s.login(`${name}.admin`, password)).access_token, tenantId: tenant.id };
}

const seededTypes = (s: TestServer, tenantId: string) => count(s, 'event_types', { tenant_id: tenantId, value: INCIDENT });
const keyRows = (s: TestServer, key: string) => count(s, 'idempotency_keys', { key });

t.test(`the built-in incident type's seeding stores no Idempotency-Key (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;

  await t.test('a keyed first incident that fails on an unknown segment: the retry is evaluated again', async (t) => {
    const { token, tenantId } = await freshTenant(s, 'seed-segment');
    t.equal(await seededTypes(s, tenantId), 0, 'not seeded yet');
    const key = newKey();
    const body = { event_type: INCIDENT, title: 'Fence cut', patrol_segments: [randomUUID()] };
    const first = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(first.status, 400, JSON.stringify(first.body));
    t.match(JSON.stringify(first.body), /unknown_segment/);
    t.equal(await keyRows(s, key), 0, 'no key row after the failure');
    const retry = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(retry.status, 400, `not a replay: ${retry.status} ${JSON.stringify(retry.body).slice(0, 200)}`);
    t.notOk(replayed(retry));
    t.equal(await keyRows(s, key), 0, 'still no key row');
    t.equal(await count(s, 'events', { tenant_id: tenantId }), 0, 'no event');
    t.equal(await seededTypes(s, tenantId), 1, 'the type was seeded once (a catalog write of its own)');
    const fixed = await s.json(E, keyedJson('POST', { event_type: INCIDENT, title: 'Fence cut' }, token, key));
    t.equal(fixed.status, 201, 'the key is free for the corrected request');
    t.notOk(replayed(fixed));
    t.equal(await keyRows(s, key), 1);
  });

  await t.test('a keyed first incident whose id is taken: 409 again on retry, never the other event', async (t) => {
    const { token, tenantId } = await freshTenant(s, 'seed-taken');
    t.equal((await s.json(V2, send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);
    const taken = await s.json(E, send('POST', { event_type: 'sighting', title: 'Already here', event_details: {} }, token));
    t.equal(taken.status, 201);
    t.equal(await seededTypes(s, tenantId), 0, 'not seeded by another type');
    const key = newKey();
    const body = { id: taken.body.id, event_type: INCIDENT, title: 'Duplicate id' };
    const first = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(first.status, 409, JSON.stringify(first.body));
    t.equal(await keyRows(s, key), 0, 'no key row after the 409');
    const retry = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(retry.status, 409, `not a replay of the existing event: ${retry.status} ${JSON.stringify(retry.body).slice(0, 200)}`);
    t.notOk(replayed(retry));
    t.equal(await keyRows(s, key), 0);
    t.equal(await count(s, 'events', { tenant_id: tenantId }), 1, 'only the sighting');
  });

  await t.test('a batched push with a first incident and invalid entries: each entry its own answer', async (t) => {
    const { token, tenantId } = await freshTenant(s, 'seed-push');
    const push = (entries: unknown[]) => s.json(PUSH, { method: 'POST', token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ entries }) });
    const [good, unknownType, unknownSegment] = [newKey(), newKey(), newKey()];
    const entries = [
      { key: good, op: 'event.create', body: { event_type: INCIDENT, title: 'Gate incident' } },
      { key: unknownType, op: 'event.create', body: { event_type: 'no_such_type', event_details: {} } },
      { key: unknownSegment, op: 'event.create', body: { event_type: INCIDENT, title: 'Lost segment', patrol_segments: [randomUUID()] } },
    ];
    const answer = await push(entries);
    t.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
    const [made, badType, badSegment] = answer.body.outcomes;
    t.match(made, { key: good, status: 'applied', kind: 'event' });
    t.ok(made.id, 'the incident is answered with its id');
    t.match(badType, { key: unknownType, status: 'rejected', http_status: 400, error: { code: 'unknown_event_type' } });
    t.match(badSegment, { key: unknownSegment, status: 'rejected', http_status: 400, error: { code: 'unknown_segment' } });
    t.equal(await keyRows(s, good), 1, 'the written entry keeps its key');
    t.equal(await keyRows(s, unknownType), 0, 'no key for a rejected entry');
    t.equal(await keyRows(s, unknownSegment), 0, 'no key for a rejected entry');
    t.equal(await count(s, 'events', { tenant_id: tenantId }), 1, 'one event');

    const again = (await push(entries)).body.outcomes;
    t.match(again[0], { key: good, status: 'replayed', id: made.id });
    t.match(again[1], { key: unknownType, status: 'rejected', http_status: 400 });
    t.match(again[2], { key: unknownSegment, status: 'rejected', http_status: 400, error: { code: 'unknown_segment' } });
    t.equal(await count(s, 'events', { tenant_id: tenantId }), 1, 'still one event');
  });

  await t.test('a tenant with a v1 incident_collection keeps using it: no v2 type is seeded', async (t) => {
    const { token, tenantId } = await freshTenant(s, 'seed-v1');
    const schema = JSON.stringify({
      schema: { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Incident', type: 'object', properties: { reportnumber: { type: 'string', title: 'Report number' } } },
      definition: ['reportnumber'],
    });
    const v1 = await s.json(V1, send('POST', { value: INCIDENT, display: 'Imported incident', schema }, token));
    t.equal(v1.status, 201, JSON.stringify(v1.body).slice(0, 300));
    const created = await s.json(E, keyedJson('POST', { event_type: INCIDENT, event_details: { reportnumber: 'R-7' } }, token, newKey()));
    t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    t.match(created.body, { event_type: INCIDENT, title: 'Imported incident', event_details: { reportnumber: 'R-7' } }, 'made with the v1 type');
    t.equal(await seededTypes(s, tenantId), 0, 'no v2 type shadows it');
    t.notOk((await s.json(V2, { token })).body.some((item: { value: string }) => item.value === INCIDENT), 'not in the v2 catalog');
  });
});
