import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { OBSERVATIONS, at, countRows, epochOf, knexOf } from './sensors-support.js';
import { KnexSensorSubjectRepository } from '../../server/db/repositories/sensors-subjects.js';
import type { ChangeSet } from '../../server/domain/sync/ports.js';

type Json = Record<string, any>;

const V1 = '/api/v1.0';

function send(method: string, body: unknown, token: string): RequestInit & { token: string } {
  return { method, token, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** A fix of minute `minute`: its latitude encodes the minute, so a position names its fix. */
const fix = (source: string, minute: number, extra: Json = {}) => ({ source, recorded_at: at(minute), location: { lat: -1 - minute / 1000, lon: 36.5 }, ...extra });

/** A subject's last position as the API shows it: the minute of its fix, or null without one. */
async function lastMinute(s: TestServer, token: string, subjectId: string): Promise<number | null> {
  const { body } = await s.json(`${V1}/subject/${subjectId}`, { token });
  const subject = body.data as Json;
  if (subject.last_position === null) {
    if (subject.tracks_available !== false) throw new Error('a subject without a position has tracks_available false');
    return null;
  }
  const minute = Math.round((Date.parse(subject.last_position_date) - epochOf(0)) / 60_000);
  // The coordinates are the fix's own (not a stale copy of another).
  if (Math.abs(subject.last_position.geometry.coordinates[1] - (-1 - minute / 1000)) > 1e-9) throw new Error(`position and time disagree for ${subjectId}`);
  return minute;
}

t.test(`a subject's last position follows its assignments (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const subject = async (name: string) => (await s.json(`${V1}/subjects`, send('POST', { name, subject_subtype: 'lion' }, token))).body.data.id as string;
  const source = async (manufacturerId: string) => (await s.json(`${V1}/sources`, send('POST', { manufacturer_id: manufacturerId, provider: 'savannah' }, token))).body.data.id as string;
  const assign = async (subjectId: string, sourceId: string, lower: number, upper: number | null = null) => {
    const made = await s.json(`${V1}/subjectsources`, send('POST', { subject: subjectId, source: sourceId, assigned_range: { lower: at(lower), upper: upper === null ? null : at(upper) } }, token));
    t.equal(made.status, 201, 'assignment created');
    return made.body.data.id as string;
  };
  const simba = await subject('Simba');
  const nala = await subject('Nala');
  const collar = await source('RC-1');
  const spare = await source('RC-2');

  const first = await assign(simba, collar, 0);
  t.equal((await s.json(OBSERVATIONS, send('POST', [fix('RC-1', 10), fix('RC-1', 70)], token))).status, 201);
  t.equal(await lastMinute(s, token, simba), 70, 'intake moved the position forward');
  t.equal(await lastMinute(s, token, nala), null);

  await t.test('an assignment given to another subject takes the last position with it', async (t) => {
    const moved = await s.json(`${V1}/subjectsource/${first}`, send('PATCH', { subject: nala }, token));
    t.equal(moved.status, 200);
    t.equal(moved.body.data.subject, nala);
    t.equal(await lastMinute(s, token, nala), 70, 'the new subject has the fix');
    t.equal(await lastMinute(s, token, simba), null, 'the old subject has no covered fix left: no position');
    t.equal(await countRows(s, 'subject_status', { subject_id: simba, recorded_at: null }), 1, 'the row stays, without a position (updated_since sees it)');
    const simbaFixes = (await s.json(`${OBSERVATIONS}?subject_id=${simba}`, { token })).body.data.count;
    t.equal(simbaFixes, 0, 'the fixes went with the assignment');
  });

  await t.test('a collar moving to another subject rolls the old subject back to its last covered fix', async (t) => {
    // Nala's open assignment ends where Simba's begins (minute 50): the fix of minute 70 is Simba's.
    await assign(simba, collar, 50);
    t.equal(await lastMinute(s, token, simba), 70);
    t.equal(await lastMinute(s, token, nala), 10, 'rolled back to the newest fix still covered');
    const before = await knexOf(s)('subject_status').where({ subject_id: nala }).first('updated_at');
    t.ok(Number(before.updated_at) > 0, 'the status row was written');
  });

  await t.test('deleting an assignment clears or rolls back the position', async (t) => {
    const simbaAssignment = (await s.json(`${V1}/subject/${simba}/subjectsources`, { token })).body.data[0].id as string;
    t.equal((await s.json(`${V1}/subjectsource/${simbaAssignment}`, send('DELETE', undefined, token))).status < 300, true);
    t.equal(await lastMinute(s, token, simba), null, 'no assignment left: no position');
    t.equal(await lastMinute(s, token, nala), 10, 'another subject is untouched');
    // Nala also wears the spare collar, with an older fix: deleting the main collar rolls back to it.
    await assign(nala, spare, 0);
    t.equal((await s.json(OBSERVATIONS, send('POST', fix('RC-2', 5), token))).status, 201);
    t.equal(await lastMinute(s, token, nala), 10, 'an older fix does not move the position back');
  });

  await t.test('deleting a source rolls its subjects back to their other sources, or clears them', async (t) => {
    t.equal((await s.json(`${V1}/source/${collar}`, send('DELETE', undefined, token))).status < 300, true);
    t.equal(await lastMinute(s, token, nala), 5, 'the spare collar\'s fix');
    const status = await knexOf(s)('subject_status').where({ subject_id: nala }).first('source_id');
    t.equal(status.source_id, spare);
    t.equal((await s.json(`${V1}/source/${spare}`, send('DELETE', undefined, token))).status < 300, true);
    t.equal(await lastMinute(s, token, nala), null, 'no fix left');
    t.equal(Number((await knexOf(s)('subject_status').whereNotNull('recorded_at').count({ n: '*' }).first())?.n), 0, 'no row keeps a position');
  });
});

/** An instant as updated_since takes it (ISO 8601 with an offset). */
const isoOf = (millis: number) => new Date(millis).toISOString().replace('Z', '+00:00');

t.test(`a cleared position reaches every updated_since reader (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const kovu = (await s.json(`${V1}/subjects`, send('POST', { name: 'Kovu', subject_subtype: 'lion' }, token))).body.data.id as string;
  const collar = (await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'RC-9', provider: 'savannah' }, token))).body.data.id as string;
  const assign = async (lower: number) => {
    const made = await s.json(`${V1}/subjectsources`, send('POST', { subject: kovu, source: collar, assigned_range: { lower: at(lower), upper: null } }, token));
    t.equal(made.status, 201, 'assignment created');
    return made.body.data.id as string;
  };
  const changedSince = async (since: number) => {
    const listed = await s.json(`${V1}/subjects?updated_since=${encodeURIComponent(isoOf(since))}`, { token });
    t.equal(listed.status, 200);
    return (listed.body.data as Json[]).filter((subject) => subject.id === kovu);
  };
  // The second updated_since reader (offline pulls, sync feed views): the repository itself.
  const noChanges = { mark: () => undefined } as unknown as ChangeSet;
  const tenantId = (await knexOf(s)('subjects').where({ id: kovu }).first('tenant_id')).tenant_id as string;
  const pulled = async (since: number) => (await new KnexSensorSubjectRepository(knexOf(s), noChanges).listWithStatus(tenantId, true, since)).filter((view) => view.subject.id === kovu);
  const statusUpdatedAt = async () => Number((await knexOf(s)('subject_status').where({ subject_id: kovu }).first('updated_at')).updated_at);
  const geojsonIds = async () => {
    const body = (await s.json(`${V1}/subjects/geojson`, { token })).body as Json;
    return ((body.features ?? body.data.features) as Json[]).map((feature) => feature.properties.id as string);
  };

  const assignment = await assign(0);
  t.equal((await s.json(OBSERVATIONS, send('POST', fix('RC-9', 20), token))).status, 201);
  t.equal(await lastMinute(s, token, kovu), 20);
  t.ok((await geojsonIds()).includes(kovu), 'positioned: on the map');
  const boxed = async () => ((await s.json(`${V1}/subjects?bbox=36,-2,37,0`, { token })).body.data as Json[]).some((subject) => subject.id === kovu);
  t.ok(await boxed(), 'positioned: in its bbox');

  const beforeClear = Date.now();
  t.equal((await s.json(`${V1}/subjectsource/${assignment}`, send('DELETE', undefined, token))).status < 300, true, 'its only assignment deleted');
  const [changed] = await changedSince(beforeClear);
  t.ok(changed, 'GET subjects?updated_since lists the subject whose position went');
  t.equal(changed?.last_position, null, 'with no position');
  t.equal(changed?.tracks_available, false);
  const [view] = await pulled(beforeClear);
  t.ok(view, 'the sensors-subjects updated_since read lists it too');
  t.equal(view?.status, null, 'with no status');
  t.equal(await lastMinute(s, token, kovu), null);
  const plain = ((await s.json(`${V1}/subjects`, { token })).body.data as Json[]).find((subject) => subject.id === kovu);
  t.equal(plain?.last_position, null, 'the subjects list shows no stale position');
  t.notOk((await geojsonIds()).includes(kovu), 'subjects/geojson shows no stale position');
  t.notOk(await boxed(), 'a subject without a position is in no bbox');

  // An assignment covering no fix recomputes the position: still none, and nothing rewritten.
  const clearedAt = await statusUpdatedAt();
  const afterClear = Date.now();
  await assign(100);
  t.equal(await lastMinute(s, token, kovu), null, 'an assignment covering no fix: still no position');
  t.equal(await statusUpdatedAt(), clearedAt, 'the clear is written once, not on every recompute');

  t.equal((await s.json(OBSERVATIONS, send('POST', fix('RC-9', 130), token))).status, 201, 'a new fix after the clear');
  t.equal(await lastMinute(s, token, kovu), 130, 'intake brings the position back');
  const [back] = await changedSince(afterClear);
  t.ok(back?.last_position, 'and updated_since lists it with its position');
  t.equal((await pulled(afterClear))[0]?.status?.recordedAt, epochOf(130));
  t.ok((await geojsonIds()).includes(kovu), 'back on the map');
});

t.test(`a manufacturer id shared by two providers is never guessed (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const made = async (provider: string) => {
    const created = await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'DUP-1', provider }, token));
    t.equal(created.status, 201, `the ${provider} source`);
    return created.body.data as Json;
  };
  const alpha = await made('alpha');
  const beta = await made('beta');
  t.equal((await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'DUP-1', provider: 'beta' }, token))).status, 409, 'still one per provider');

  await t.test('POST observations: 400 on the item without a provider, stored with one', async (t) => {
    const ambiguous = await s.json(OBSERVATIONS, send('POST', [fix(alpha.id, 1), fix('DUP-1', 2)], token));
    t.equal(ambiguous.status, 400);
    t.match(ambiguous.body.observations, [{ index: 1, code: 'ambiguous_source', pointer: '/1/source' }]);
    t.equal(ambiguous.body.observations.length, 1, 'a source id is never ambiguous');
    t.match(ambiguous.body.observations[0].message, /alpha.*beta/, 'the message names the providers');
    t.ok(ambiguous.body.status.detail, 'the contract\'s error body');
    t.equal(await countRows(s, 'observations'), 0, 'nothing of the batch was stored');

    const byKey = await s.json(OBSERVATIONS, send('POST', fix('DUP-1', 3, { provider: 'beta' }), token));
    t.equal(byKey.status, 201);
    t.equal(byKey.body.data.source, beta.id, 'the provider\'s source');
    const providerId = (await knexOf(s)('sensor_providers').where({ provider_key: 'alpha' }).first('id')).id as string;
    const byId = await s.json(OBSERVATIONS, send('POST', fix('DUP-1', 4, { provider: providerId }), token));
    t.equal(byId.status, 201);
    t.equal(byId.body.data.source, alpha.id, 'a provider id works too');

    const unknown = await s.json(OBSERVATIONS, send('POST', fix('DUP-1', 5, { provider: 'gamma' }), token));
    t.equal(unknown.status, 400);
    t.match(unknown.body.observations, [{ code: 'unknown_source', pointer: '/source' }]);
    const wrong = await s.json(OBSERVATIONS, send('POST', fix(alpha.id, 6, { provider: 'beta' }), token));
    t.match(wrong.body.observations, [{ code: 'unknown_source' }], 'an id of another provider\'s source is no source of that provider');
  });

  await t.test('the source path: 400 when ambiguous, found with a provider', async (t) => {
    const ambiguous = await s.json(`${V1}/source/DUP-1`, { token });
    t.equal(ambiguous.status, 400);
    t.match(ambiguous.body.source, [{ code: 'ambiguous_source' }]);
    t.equal((await s.json(`${V1}/source/${beta.id}`, { token })).body.data.id, beta.id, 'by id as before');
    t.equal((await s.json(`${V1}/source/DUP-1?provider=beta`, { token })).body.data.id, beta.id, '?provider= picks by key');
    t.equal((await s.json(`${V1}/source/DUP-1?provider=alpha`, { token })).body.data.id, alpha.id, 'and the other one');
    t.equal((await s.json(`${V1}/source/DUP-1?provider=gamma`, { token })).status, 404, 'an unknown provider: no such source');
    const renamed = await s.json(`${V1}/source/DUP-1?provider=alpha`, send('PATCH', { model_name: 'Alpha collar' }, token));
    t.equal(renamed.body.data?.model_name, 'Alpha collar', 'PATCH with ?provider= changes that source');
    t.equal((await s.json(`${V1}/source/${beta.id}`, { token })).body.data.model_name === 'Alpha collar', false, 'and not the other');
    t.equal((await s.json(`${V1}/source/DUP-1`, send('DELETE', undefined, token))).status, 400, 'DELETE without a provider: never a guess');
    const subject = (await s.json(`${V1}/subjects`, send('POST', { name: 'Kiara' }, token))).body.data.id as string;
    const assignment = await s.json(`${V1}/subjectsources`, send('POST', { subject, source: 'DUP-1' }, token));
    t.equal(assignment.status, 400, 'an assignment body names its source unambiguously');
    t.match(assignment.body.source, [{ code: 'ambiguous_source' }]);
  });
});
