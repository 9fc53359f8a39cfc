import t from 'tap';
import { parse } from 'csv-parse/sync';
import { ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { epochOf, knexOf, userToken } from './sensors-support.js';
import { V1, assign, fixes, iso, sourceId, subjectId } from './tracks-support.js';

const COLUMNS = ['subject_id', 'subject_name', 'subject_type', 'subject_subtype', 'source_id', 'manufacturer_id', 'source_type', 'provider', 'observation_id', 'recorded_at', 'latitude', 'longitude', 'observation_details'];

t.test(`trackingdata and trackingmetadata exports (${dialect})`, async (t) => {
  const s = await startTestServer(t, { clock: new ManualClock(Date.UTC(2026, 10, 20, 10, 0, 0)) });
  if (!s) return;
  const admin = (await s.login()).access_token;
  const { admin: adminService } = s.server.runtime;
  // A name and details that need quoting: a comma, a quote, a newline.
  await fixes(s, admin, 'exp-1', 'Kiboko, "the big" one', [0, 1, 2, 3], { additional: { note: 'line one\nline "two", three' } });
  await fixes(s, admin, 'exp-2', 'Kiboko, "the big" one', [4, 5, 6]);
  await fixes(s, admin, 'exp-3', 'Retired', [1, 2]);
  const kiboko = await subjectId(s, 'Kiboko, "the big" one');
  const retired = await subjectId(s, 'Retired');
  const [one, two, three] = [await sourceId(s, 'exp-1'), await sourceId(s, 'exp-2'), await sourceId(s, 'exp-3')];
  await assign(s, [one, two, three], [
    { source: one, subject: kiboko, from: null, to: 3 },
    { source: two, subject: kiboko, from: 3, to: null },
    { source: three, subject: retired, from: null, to: null },
  ]);
  await knexOf(s)('subjects').where({ id: retired }).update({ is_active: false });
  const get = (path: string, token = admin) => s.request(`${V1}${path}`, { token });
  const csv = async (path: string) => {
    const response = await get(path);
    t.equal(response.status, 200, path);
    return { response, rows: parse(await response.text(), { columns: true }) as Array<Record<string, string>> };
  };

  await t.test('CSV: header, rows through assignments, quoting by csv-stringify', async (t) => {
    const { response, rows } = await csv(`/trackingdata/export?subject_id=${kiboko}`);
    t.match(response.headers.get('content-type'), /^text\/csv/);
    t.match(response.headers.get('content-disposition'), /^attachment; filename="trackingdata_\d{4}-\d{2}-\d{2}\.csv"$/);
    t.match(response.headers.get('x-das-download-filename'), /^trackingdata_.*\.csv$/);
    t.same(Object.keys(rows[0]!), COLUMNS);
    t.same(rows.map((r) => [r.manufacturer_id, r.recorded_at]), [
      ['exp-1', iso(epochOf(0))], ['exp-1', iso(epochOf(1))], ['exp-1', iso(epochOf(2))],
      ['exp-2', iso(epochOf(4))], ['exp-2', iso(epochOf(5))], ['exp-2', iso(epochOf(6))],
    ], 'exp-1 before minute 3, exp-2 from it; in time order');
    t.equal(rows[0]!.subject_name, 'Kiboko, "the big" one');
    t.same(JSON.parse(rows[0]!.observation_details!), { note: 'line one\nline "two", three' });
    t.equal(rows[0]!.latitude, '0');
    t.equal(rows[0]!.provider, 'acme-collars');
  });

  await t.test('filters: range aliases, source, max_records, inactive subjects, current status', async (t) => {
    const ranged = await csv(`/trackingdata/export?subject_id=${kiboko}&after_date=${encodeURIComponent(iso(epochOf(2)))}&before_date=${encodeURIComponent(iso(epochOf(4)))}`);
    t.same(ranged.rows.map((r) => r.recorded_at), [iso(epochOf(2)), iso(epochOf(4))], 'er-client\'s after_date/before_date, inclusive');
    const since = await csv(`/trackingdata/export?subject_id=${kiboko}&since=${encodeURIComponent(iso(epochOf(5)))}`);
    t.equal(since.rows.length, 2);
    const bySource = await csv(`/trackingdata/export?source_id=${two}`);
    t.same(bySource.rows.map((r) => r.manufacturer_id), ['exp-2', 'exp-2', 'exp-2']);
    t.equal((await csv(`/trackingdata/export?max_records=4`)).rows.length, 4);
    const all = await csv('/trackingdata/export');
    t.notOk(all.rows.some((r) => r.subject_id === retired), 'the whole tenant: active subjects only by default');
    t.ok((await csv('/trackingdata/export?include_inactive=true')).rows.some((r) => r.subject_id === retired));
    t.equal((await csv(`/trackingdata/export?subject_id=${retired}`)).rows.length, 2, 'a named subject: inactive included (er-client\'s default)');
    const current = await csv(`/trackingdata/export?subject_id=${kiboko}&current_status=True`);
    t.same(current.rows.map((r) => [r.recorded_at, r.observation_id]), [[iso(epochOf(6)), '']]);
  });

  await t.test('JSON, as er-client asks for it', async (t) => {
    const response = await get(`/trackingdata/export?subject_id=${kiboko}&include_inactive=True&format=json&filter=0&current_status=False`);
    t.equal(response.status, 200);
    t.match(response.headers.get('content-type'), /^application\/json/);
    const body = (await response.json()) as Array<Record<string, unknown>>;
    t.equal(body.length, 6);
    t.same(Object.keys(body[0]!), COLUMNS);
    t.same(body[0]!.observation_details, { note: 'line one\nline "two", three' }, 'details as an object in JSON');
    t.same((await (await get(`/trackingdata/export?subject_id=${kiboko}&format=json&since=${encodeURIComponent(iso(epochOf(100)))}`)).json()), [], 'nothing: an empty array');
  });

  await t.test('trackingmetadata: subjects with sources and assigned ranges', async (t) => {
    const json = (await (await get('/trackingmetadata/export?format=json&include_inactive=true')).json()) as Array<Record<string, any>>;
    const entry = json.find((x) => x.id === kiboko)!;
    t.same(entry.sources.map((x: { manufacturer_id: string; assigned_range: unknown }) => [x.manufacturer_id, x.assigned_range]), [
      ['exp-1', { lower: iso(0), upper: iso(epochOf(3)), bounds: '[)' }],
      ['exp-2', { lower: iso(epochOf(3)), upper: null, bounds: '[)' }],
    ]);
    t.ok(json.some((x) => x.id === retired));
    const { rows } = await csv('/trackingmetadata/export');
    t.same(rows.filter((r) => r.subject_id === kiboko).map((r) => [r.manufacturer_id, r.assigned_range_upper, r.is_active]), [['exp-1', iso(epochOf(3)), 'true'], ['exp-2', '', 'true']]);
    t.notOk(rows.some((r) => r.subject_id === retired), 'active subjects only by default');
  });

  await t.test('inputs, permissions, tenants', async (t) => {
    t.equal((await get('/trackingdata/export?format=xml')).status, 400);
    t.equal((await get('/trackingdata/export?max_records=0')).status, 400);
    t.equal((await get('/trackingdata/export?after_date=2026-11-20')).status, 400);
    t.equal((await get('/trackingdata/export?subject_chronofile=abc')).status, 400);
    t.equal((await get('/trackingdata/export?subject_id=00000000-0000-4000-8000-000000000000')).status, 404);
    t.equal((await get('/trackingdata/export?source_id=00000000-0000-4000-8000-000000000000')).status, 404);
    const viewer = await userToken(s, 'export.viewer', ['view_observation', 'view_subject']);
    t.equal((await get('/trackingdata/export', viewer)).status, 403, 'export_observation is needed');
    t.equal((await get('/trackingmetadata/export', viewer)).status, 403);
    const exporter = await userToken(s, 'export.user', ['export_observation']);
    t.equal((await get('/trackingdata/export', exporter)).status, 200);
    await adminService.createTenant('export-b');
    await adminService.createUser({ tenant: 'export-b', username: 'export.b', password: 'Export-B-Pass-1', superuser: true });
    const other = (await s.login('export.b', 'Export-B-Pass-1')).access_token;
    t.equal((await get(`/trackingdata/export?subject_id=${kiboko}`, other)).status, 404);
    t.equal(await (await get('/trackingdata/export', other)).text(), COLUMNS.join(',') + '\n', 'another tenant exports only its own (nothing): the header');
    t.same(await (await get('/trackingmetadata/export?format=json', other)).json(), []);
  });
});
