import t from 'tap';
import knexFactory from 'knex';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';

/**
 * kill -9 the server while clients write; restart; every write that was acknowledged with a
 * 2xx is there, nothing half-written is, and the database passes its integrity checks.
 */
t.test(`crash safety under kill -9 (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir, FIELDOPS_ADMIN_PASSWORD: 'Crash-Test-Pass-1', FIELDOPS_PATROL_SWEEP_SECONDS: '0' };
  const first = serveProcess(env);
  const url = await first.url;
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: 'Crash-Test-Pass-1' }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  const acknowledged = { types: [] as string[], patrols: [] as string[], batches: [] as string[] };
  const attempted = { batches: [] as string[] };
  let stop = false;
  const post = async (path: string, body: unknown) => {
    try {
      const response = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  };
  const writers = [
    (async () => {
      for (let i = 0; !stop; i++) if ((await post('/api/v1.0/activity/patrols/types', { value: `crash-${i}`, display: `Crash ${i}` })) === 201) acknowledged.types.push(`crash-${i}`);
    })(),
    (async () => {
      for (let i = 0; !stop; i++) {
        const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        const status = await post('/api/v1.0/activity/patrols', { id, title: `crash patrol ${i}`, patrol_segments: [{ scheduled_start: '2026-11-20T10:00:00+00:00' }, { scheduled_start: '2026-11-20T12:00:00+00:00' }] });
        if (status === 201) acknowledged.patrols.push(id);
      }
    })(),
    (async () => {
      for (let i = 0; !stop; i++) {
        const device = `crash-radio-${i}`;
        attempted.batches.push(device);
        const batch = Array.from({ length: 50 }, (_, n) => ({ manufacturer_id: device, recorded_at: new Date(Date.UTC(2026, 10, 20) + n * 60_000).toISOString(), location: { lat: -1 - n / 1000, lon: 36 } }));
        if ((await post('/sensors/gps-radio/crash-provider/status', batch)) === 201) acknowledged.batches.push(device);
      }
    })(),
  ];
  await new Promise((resolve) => setTimeout(resolve, 1500));
  first.child.kill('SIGKILL');
  await first.exited;
  stop = true;
  await Promise.all(writers);
  t.ok(acknowledged.types.length > 0 && acknowledged.patrols.length > 0 && acknowledged.batches.length > 0, `writes were acknowledged before the kill (${acknowledged.types.length} types, ${acknowledged.patrols.length} patrols, ${acknowledged.batches.length} batches)`);

  const second = serveProcess(env);
  const secondUrl = await second.url;
  t.teardown(async () => {
    second.child.kill('SIGTERM');
    await second.exited;
  });
  t.equal((await fetch(`${secondUrl}/readyz`)).status, 200, 'the restarted server is ready');
  const knex = dialect === 'sqlite' ? knexFactory({ client: 'better-sqlite3', connection: { filename: db.location }, useNullAsDefault: true }) : knexFactory({ client: 'pg', connection: db.location });
  t.teardown(() => knex.destroy());
  const types = new Set((await knex('patrol_types').pluck('value')) as string[]);
  t.ok(acknowledged.types.every((value) => types.has(value)), 'every acknowledged patrol type is there');
  const patrols = await knex('patrols').select('id', 'segment_count');
  const patrolIds = new Set(patrols.map((p: { id: string }) => p.id));
  t.ok(acknowledged.patrols.every((id) => patrolIds.has(id)), 'every acknowledged patrol is there');
  const segments = (await knex('patrol_segments').select('patrol_id').count({ n: '*' }).groupBy('patrol_id')) as Array<{ patrol_id: string; n: number | string }>;
  const counts = new Map(segments.map((row: { patrol_id: string; n: number | string }) => [row.patrol_id, Number(row.n)]));
  t.ok(patrols.every((p: { id: string; segment_count: number }) => counts.get(p.id) === 2 && Number(p.segment_count) === 2), 'no patrol half-written: both segments and the derived window, or nothing');
  const stored = (await knex('observations').join('sensor_sources', 'sensor_sources.id', 'observations.source_id').select('sensor_sources.manufacturer_id').count({ n: '*' }).groupBy('sensor_sources.manufacturer_id')) as Array<{ manufacturer_id: string; n: number | string }>;
  const perDevice = new Map(stored.map((row: { manufacturer_id: string; n: number | string }) => [row.manufacturer_id, Number(row.n)]));
  t.ok(acknowledged.batches.every((device) => perDevice.get(device) === 50), 'every acknowledged batch is there whole');
  t.ok([...perDevice.values()].every((n) => n === 50), 'no batch half-stored');
  t.ok([...perDevice.keys()].every((device) => attempted.batches.includes(device)), 'nothing that was never sent');
  if (dialect === 'sqlite') {
    const [check] = (await knex.raw('PRAGMA integrity_check')) as Array<{ integrity_check: string }>;
    t.equal(check?.integrity_check, 'ok', 'PRAGMA integrity_check');
    t.same(await knex.raw('PRAGMA foreign_key_check'), [], 'PRAGMA foreign_key_check');
  } else {
    const orphans = await knex.raw('SELECT count(*)::int AS n FROM patrol_segments s LEFT JOIN patrols p ON p.id = s.patrol_id WHERE p.id IS NULL');
    t.equal(orphans.rows[0].n, 0, 'no orphaned segments');
  }
});
