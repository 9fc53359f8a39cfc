/**
 * A datasheet that is not CSV (an unclosed quote, a quote inside a bare cell) is one problem of
 * the file at FILE:line:column, in the lint formats, and nothing is queued: csv-parse's errors
 * reach `events import` as findings, never as a crash (both databases: a synced catalog).
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { outboxOf, syncedCli, writeFile } from '../sync/offline-fixtures.js';

t.test('events import of a file that is not CSV', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  await seedCatalog(s, (await s.login()).access_token);
  const cli = await syncedCli(t, s.url);
  const header = 'time,latitude,longitude,notes,species';
  const unclosed = writeFile(cli, 'unclosed.csv', `${header}\n2026-11-01T06:00:00+00:00,-1.2,36.8,ok,lion\n\n2026-11-01T06:05:00+00:00,-1.2,36.8,"no end,lion\n`);
  const stylish = await cli.run(['events', 'import', unclosed, '--type', 'wildlife_sighting']);
  t.equal(stylish.code, 1);
  t.match(stylish.stdout, /4:4\s+error\s+not valid CSV: a quoted cell is not closed\s+invalid_csv/);
  t.match(stylish.stdout, /hint: quote cells that contain commas/);
  const json = await cli.json(['events', 'import', unclosed, '--type', 'wildlife_sighting']);
  t.match(json.body, { rows: 0, queued: 0, findings: [{ code: 'invalid_csv', line: 4, column: 4, document: '' }] });

  const bare = writeFile(cli, 'bare.csv', `${header}\r\n2026-11-01T06:00:00+00:00,-1.2,36.8,a "quoted" word,lion\r\n`);
  const github = await cli.run(['events', 'import', bare, '--type', 'wildlife_sighting', '--format', 'github']);
  t.equal(github.code, 1);
  t.match(github.stdout, /::error file=.*bare\.csv,line=2,col=4,title=fieldops invalid_csv::not valid CSV: a quote inside a cell that does not start with one/);
  t.equal((await outboxOf(cli)).counts.pending ?? 0, 0, 'nothing queued');
});
