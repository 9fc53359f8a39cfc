/**
 * Issue 24 item 13f: what makes an imported observation the same one is the file's content and
 * every option that changes what is stored: importing a GPS track (GPX or CSV) again under a
 * corrected --subject queues its points for that subject; the same import again queues
 * nothing. Pushed, the points are on the server under the corrected subject. Both databases.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { gpxTrack, outboxOf, syncedCli, writeFile } from '../sync/offline-fixtures.js';

t.test('a re-import under a corrected subject is new; the same import is not', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const cli = await syncedCli(t, s.url);
  const points = 5;
  const gpx = writeFile(cli, 'track.gpx', gpxTrack(points));
  const csv = writeFile(cli, 'track.csv', 'recorded_at,latitude,longitude\n2026-11-03T07:00:00Z,-1.2,36.8\n2026-11-03T07:00:10Z,-1.21,36.81\n');
  const queue = async (file: string, ...options: string[]) => {
    const result = await cli.json(['observations', 'import', file, ...options]);
    t.equal(result.code, 0, result.stderr);
    return result.body.queued as number;
  };

  t.equal(await queue(gpx, '--subject', 'Colar 7'), points, 'first import (subject misspelt)');
  t.equal(await queue(gpx, '--subject', 'Colar 7'), 0, 'the same import again: nothing');
  t.equal(await queue(gpx, '--subject', 'Collar 7'), points, 'under the corrected subject: queued for it');
  t.equal(await queue(gpx, '--subject', 'Collar 7'), 0, 'and that again: nothing');
  t.equal(await queue(gpx, '--subject', 'Collar 7', '--source-type', 'gps-handheld'), points, 'another source type is another record too');
  t.equal(await queue(csv, '--subject', 'Colar 7'), 2, 'a CSV track the same way');
  t.equal(await queue(csv, '--subject', 'Collar 7'), 2);
  t.equal(await queue(csv, '--subject', 'Collar 7'), 0);

  const entries = (await outboxOf(cli)).entries.filter((e) => e.kind === 'observation');
  t.equal(entries.length, 3 * points + 4);
  const corrected = await cli.json(['outbox', '--all']);
  const subjects = new Set(corrected.body.entries.map((e: any) => e.body.observation.subject_name));
  t.same([...subjects].sort(), ['Colar 7', 'Collar 7']);

  const push = await cli.json(['push']);
  t.equal(push.code, 0, push.stderr);
  const listed = await s.json('/api/v1.0/subjects', { token });
  const collar = listed.body.data.find((x: any) => x.name === 'Collar 7');
  t.ok(collar?.last_position_date, 'the corrected subject has its positions on the server');
});
