import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';
import { GPS, epochOf, knexOf, observation, post } from './sensors-support.js';

/**
 * A steady stream is decided on what the server remembers of its provider, sources and
 * subjects (server/domain/sensors/steady-targets.ts), and each insert checks in the database
 * that it still holds. These tests change that under a server's feet from another process.
 */
t.test(`steady sensor intake (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const s = (await startTestServer(t, { database }))!;
  const admin = (await s.login()).access_token;
  const knex = knexOf(s);
  const statements: string[] = [];
  knex.on('query', (query: { sql: string }) => statements.push(query.sql));
  const subjectOfObservation = async (manufacturerId: string, minute: number) => {
    const row = await knex('observations as o').join('sensor_sources as s', 's.id', 'o.source_id').leftJoin('subjects as x', 'x.id', 'o.subject_id')
      .where({ 's.manufacturer_id': manufacturerId, 'o.recorded_at': epochOf(minute) }).first('x.name');
    return row?.name ?? null;
  };
  const subjectsVersion = async () => Number((await knex('catalog_versions').where({ catalog: 'subjects' }).first('version'))?.version ?? 0);

  await t.test('a steady stream reads its provider, sources and subjects once, then writes one statement a batch', async (t) => {
    t.equal((await post(s, GPS, [observation('collar-1', 0, { subject_name: 'Alpha' }), observation('collar-2', 0, { subject_name: 'Bravo' })], admin)).status, 201, 'first sight: sources and subjects created');
    statements.length = 0;
    t.equal((await post(s, GPS, [observation('collar-1', 1), observation('collar-2', 1)], admin)).status, 201);
    const reads = (sql: string) => /sensor_providers/i.test(sql);
    t.ok(statements.some(reads), 'the first steady batch reads');
    statements.length = 0;
    for (let minute = 2; minute < 5; minute++) {
      const batch = await post(s, GPS, [observation('collar-1', minute), observation('collar-2', minute)], admin);
      t.same([batch.status, batch.body.data.created], [201, 2], `steady batch at minute ${minute}`);
    }
    t.notOk(statements.some(reads), 'the next ones do not');
    if (dialect === 'postgres') t.equal(statements.length, 3, 'PostgreSQL: one statement a batch');
    t.same([await subjectOfObservation('collar-1', 4), await subjectOfObservation('collar-2', 4)], ['Alpha', 'Bravo'], 'items without a subject take their source\'s');
  });

  await t.test('another process changes a source, adds a subject, changes a subject: the next batch sees each', async (t) => {
    const other = serveProcess({ DATABASE_URL: database.location, FIELDOPS_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-steady-')), FIELDOPS_ADMIN_PASSWORD: ADMIN_PASSWORD });
    t.teardown(async () => {
      other.child.kill('SIGTERM');
      await other.exited;
    });
    const otherUrl = await other.url;
    const login = await fetch(`${otherUrl}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD }) });
    const { access_token: otherToken } = (await login.json()) as { access_token: string };
    const postOther = async (body: unknown) => (await fetch(otherUrl + GPS, { method: 'POST', headers: { Authorization: `Bearer ${otherToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).status;
    const bravo = await knex('subjects').where({ name: 'Bravo' }).first('id');

    // The source alone changes: collar-1 now tracks Bravo; no subject is written.
    const version = await subjectsVersion();
    t.equal(await postOther(observation('collar-1', 10, { subject_id: bravo.id })), 201, 'the other process points collar-1 at Bravo');
    t.equal(await subjectsVersion(), version, 'no subject was written (only the source changed)');
    t.equal((await post(s, GPS, observation('collar-1', 11), admin)).status, 201);
    t.equal(await subjectOfObservation('collar-1', 11), 'Bravo', 'this server\'s next batch follows the source, not what it remembered');
    t.match(await (await s.request('/metrics', { token: admin })).text(), /fieldops_sensor_steady_batches_total\{outcome="stale"\} 1\n/, 'and /metrics counts the stamp that failed');

    // A subject is created and the source moves to it.
    t.equal(await postOther(observation('collar-1', 12, { subject_name: 'Charlie' })), 201, 'the other process creates Charlie for collar-1');
    t.ok(await subjectsVersion() > version, 'the subjects changed');
    t.equal((await post(s, GPS, observation('collar-1', 13), admin)).status, 201);
    t.equal(await subjectOfObservation('collar-1', 13), 'Charlie');
    t.equal((await post(s, GPS, [observation('collar-1', 14, { subject_name: 'Charlie' }), observation('collar-2', 14, { subject_name: 'Charlie' })], admin)).status, 201);
    t.same([await subjectOfObservation('collar-1', 14), await subjectOfObservation('collar-2', 14)], ['Charlie', 'Charlie'], 'names resolve to the subject the other process created');

    // Only a subject changes: the other process makes Charlie an elephant; this server, which
    // remembers Charlie as a rhino, is asked for a rhino again and must change it back.
    t.equal((await post(s, GPS, observation('collar-1', 15, { subject_name: 'Charlie', subject_subtype: 'rhino' }), admin)).status, 201);
    t.equal((await post(s, GPS, observation('collar-1', 16, { subject_name: 'Charlie', subject_subtype: 'rhino' }), admin)).status, 201, 'steady: remembered as a rhino');
    t.equal(await postOther(observation('collar-1', 17, { subject_name: 'Charlie', subject_subtype: 'elephant' })), 201);
    t.equal((await post(s, GPS, observation('collar-1', 18, { subject_name: 'Charlie', subject_subtype: 'rhino' }), admin)).status, 201);
    t.equal((await knex('subjects').where({ name: 'Charlie' }).first('subject_subtype')).subject_subtype, 'rhino', 'the subtype asked for last wins');
    const statuses = await knex('subject_status as st').join('subjects as x', 'x.id', 'st.subject_id').select('x.name', 'st.recorded_at').orderBy('x.name');
    t.same(statuses.map((row) => [row.name, Number(row.recorded_at)]), [['Alpha', epochOf(4)], ['Bravo', epochOf(11)], ['Charlie', epochOf(18)]], 'every subject\'s status is its newest position');
  });

  await t.test('a retried or late batch leaves each subject\'s status untouched', async (t) => {
    const status = async () => knex('subject_status as st').join('subjects as x', 'x.id', 'st.subject_id').where({ 'x.name': 'Alpha' }).first('st.recorded_at', 'st.updated_at', 'st.radio_state');
    const batch = [observation('collar-9', 100, { subject_name: 'Alpha' }), observation('collar-9', 101, { subject_name: 'Alpha', additional: { radio_state: 'online' } })];
    t.equal((await post(s, GPS, batch, admin)).status, 201);
    const stored = await status();
    t.equal(Number(stored.recorded_at), epochOf(101));
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal((await post(s, GPS, batch, admin)).status, 200, 'the retry');
    t.same(await status(), stored, 'a retry changes nothing, updated_at included');
    t.equal((await post(s, GPS, observation('collar-9', 99, { subject_name: 'Alpha', additional: { radio_state: 'offline' } }), admin)).status, 201, 'an older fix, stored');
    t.same(await status(), stored, 'moves neither position nor radio state, so nothing');
    t.equal((await post(s, GPS, observation('collar-9', 102, { subject_name: 'Alpha' }), admin)).status, 201);
    const moved = await status();
    t.ok(Number(moved.recorded_at) === epochOf(102) && Number(moved.updated_at) > Number(stored.updated_at), 'a newer fix moves it');
    t.equal(moved.radio_state, stored.radio_state, 'and keeps the newest radio state');
  });

  await t.test('a stale batch stores nothing twice and loses nothing', async (t) => {
    const before = Number((await knex('observations').count({ n: '*' }).first())?.n ?? 0);
    const batch = Array.from({ length: 40 }, (_, i) => observation(`collar-${1 + (i % 2)}`, 20 + i));
    const results = await Promise.all([post(s, GPS, batch, admin), post(s, GPS, batch, admin)]);
    t.same(results.map((r) => r.body.data.created).sort(), [0, 40], 'concurrent copies: one stores all, the other none');
    t.equal(Number((await knex('observations').count({ n: '*' }).first())?.n ?? 0), before + 40);
  });
});
