/**
 * Recording offline: datasheets (CSV, JSON, NDJSON) validated against the mirrored catalogs,
 * invalid rows reported in the lint formats with FILE:line:column, the field's pointer and a
 * hint; nothing of a file with an invalid row queued unless --skip-invalid; an import killed
 * mid-way leaves all of the file queued or none of it.
 */
import t from 'tap';
import { spawnCli } from '../helpers/cli-process.js';
import { integrityCheck } from '../helpers/mirror-dump.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { outboxOf, sightingsCsv, syncedCli, writeFile } from '../sync/offline-fixtures.js';

t.test('datasheets validated offline', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  await seedCatalog(s, (await s.login()).access_token);
  const cli = await syncedCli(t, s.url);
  const bad = writeFile(
    cli,
    'bad.csv',
    [
      'time,latitude,longitude,priority,state,notes,species',
      '2026-11-01T06:00:00+00:00,-1.2,36.8,100,new,ok,Elephant',
      '2026-11-01T06:05:00,-1.2,36.8,100,new,no offset,lion',
      '2026-11-01T06:10:00+00:00,-1.2,36.8,100,new,unknown species,zebra',
      '2026-11-01T06:15:00+00:00,-91,36.8,150,open,bad envelope,rhino',
    ].join('\n'),
  );

  await t.test('invalid rows: FILE:line:column, pointer and hint; nothing queued', async (t) => {
    const stylish = await cli.run(['events', 'import', bad, '--type', 'wildlife_sighting']);
    t.equal(stylish.code, 1);
    t.match(stylish.stdout, /bad\.csv/);
    t.match(stylish.stdout, /3:1\s+error\s+row 2: time "2026-11-01T06:05:00" is not an ISO 8601 date-time with an offset/);
    t.match(stylish.stdout, /4:7\s+error\s+row 3: "zebra" is not a choice of species/);
    t.match(stylish.stdout, /hint: one of: elephant \(Elephant\), lion \(Lion\), rhino \(Rhino\)/);
    t.match(stylish.stdout, /5:2\s+error\s+row 4: latitude is -90\.\.90/);
    t.match(stylish.stdout, /5:4\s+error\s+row 4: priority 150/);
    t.match(stylish.stderr, /3 of 4 rows invalid; nothing queued/);
    t.equal((await outboxOf(cli)).counts.pending, 0);

    const json = await cli.json(['events', 'import', bad, '--type', 'wildlife_sighting']);
    t.equal(json.body.invalid, 3);
    t.same(json.body.findings.find((f: any) => f.code === 'invalid_cell'), { document: '/3', pointer: '/event_details/species', line: 4, column: 7, severity: 'error', code: 'invalid_cell', category: 'validation', message: 'row 3: "zebra" is not a choice of species', hints: ['one of: elephant (Elephant), lion (Lion), rhino (Rhino)'] });

    const github = await cli.run(['events', 'import', bad, '--type', 'wildlife_sighting', '--format', 'github']);
    t.match(github.stdout, /::error file=.*bad\.csv,line=4,col=7,title=fieldops invalid_cell::row 3: "zebra" is not a choice of species%0Ahint: .*%0Aat \/event_details\/species/);
    const sarif = JSON.parse((await cli.run(['events', 'import', bad, '--type', 'wildlife_sighting', '--format', 'sarif'])).stdout);
    t.equal(sarif.runs[0].results.length, json.body.findings.length);
    t.match((await cli.run(['events', 'import', bad, '--type', 'wildlife_sighting', '--format', 'junit'])).stdout, /<testsuites[\s\S]*<failure/);
  });

  await t.test('--skip-invalid queues the valid rows only', async (t) => {
    const result = await cli.json(['events', 'import', bad, '--type', 'wildlife_sighting', '--skip-invalid']);
    t.equal(result.code, 1, 'still exit 1: rows were invalid');
    t.match(result.body, { rows: 4, valid: 1, invalid: 3, queued: 1 });
    const entries = (await outboxOf(cli)).entries;
    t.equal(entries.length, 1);
    t.match(entries[0], { kind: 'event.create', status: 'pending' });
  });

  await t.test('JSON and NDJSON, and an unknown column', async (t) => {
    const events = [
      { time: '2026-11-02T08:00:00+00:00', location: { latitude: -1.1, longitude: 36.9 }, event_details: { species: 'lion', notes: 'a' } },
      { time: '2026-11-02T08:05:00+00:00', event_details: { species: 'tiger' } },
    ];
    const json = await cli.json(['events', 'import', writeFile(cli, 'e.json', JSON.stringify(events, null, 2)), '--type', 'wildlife_sighting']);
    t.equal(json.code, 1);
    t.match(json.body.findings, [{ pointer: '/event_details/species', line: 16, column: 18 }]);
    const nd = await cli.json(['events', 'import', writeFile(cli, 'e.ndjson', events.slice(0, 1).map((e) => JSON.stringify(e)).join('\n') + '\n'), '--type', 'wildlife_sighting']);
    t.equal(nd.code, 0, nd.stderr);
    t.equal(nd.body.queued, 1);
    const unknown = await cli.run(['events', 'import', writeFile(cli, 'u.csv', 'time,weather\n2026-11-02T08:00:00+00:00,rain\n'), '--type', 'wildlife_sighting']);
    t.equal(unknown.code, 1);
    t.match(unknown.stdout, /1:1\s+error\s+column "weather" is not a field of wildlife_sighting/);
    t.match(unknown.stdout, /hint: fields: notes, species/);
    const format = await cli.run(['events', 'import', writeFile(cli, 'x.txt', ''), '--type', 'wildlife_sighting']);
    t.equal(format.code, 2);
    t.match(format.stderr, /error: cannot tell the format of .*x\.txt\nhint: name it \.csv, \.json or \.ndjson/);
  });

  await t.test('an import killed at any moment queues the whole file or nothing', async (t) => {
    const rows = 20000;
    // How long a whole import takes here, to kill the real one around its commit.
    const started = Date.now();
    t.equal((await cli.run(['events', 'import', writeFile(cli, 'calibration.csv', sightingsCsv(rows, Date.UTC(2025, 0, 1))), '--type', 'wildlife_sighting'])).code, 0);
    const fullMs = Date.now() - started;
    const sheet = writeFile(cli, 'large.csv', sightingsCsv(rows));
    const before = (await outboxOf(cli)).counts.pending!;
    for (const fraction of [0.5, 0.8, 0.9, 0.95, 0.98, 1]) {
      const child = spawnCli(['events', 'import', sheet, '--type', 'wildlife_sighting'], cli.env);
      await new Promise((resolve) => setTimeout(resolve, Math.round(fullMs * fraction)));
      child.child.kill('SIGKILL');
      await child.exited;
      t.equal(integrityCheck(cli.mirror), 'ok');
      const pending = (await outboxOf(cli)).counts.pending! - before;
      t.ok(pending === 0 || pending === rows, `after a kill at ${Math.round(fraction * 100)}% of an import: ${pending} queued (all or nothing)`);
      if (pending === rows) break;
    }
    const finished = await cli.json(['events', 'import', sheet, '--type', 'wildlife_sighting']);
    t.equal(finished.code, 0, finished.stderr);
    t.equal(finished.body.queued + finished.body.already_queued, rows);
    t.equal((await outboxOf(cli)).counts.pending! - before, rows);
  });
});
