/**
 * GPS tracks imported offline (GPX and CSV) and pushed as sensor observations, in batches of up
 * to 1000, exactly once through a kill -9 after the server stored a batch (both databases).
 */
import t from 'tap';
import { spawnCli } from '../helpers/cli-process.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startKillProxy } from '../sync/kill-proxy.js';
import { gpxTrack, outboxOf, serverObservationCount, syncedCli, writeFile } from '../sync/offline-fixtures.js';

t.test('observations import and push', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const proxy = await startKillProxy(t, s.url);
  const cli = await syncedCli(t, proxy.url);
  const points = 3500;
  const track = writeFile(cli, 'track.gpx', gpxTrack(points));

  const first = await cli.json(['observations', 'import', track, '--subject', 'Collar 7']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.body, { points, valid: points, invalid: 0, queued: points });
  t.equal((await cli.json(['observations', 'import', track, '--subject', 'Collar 7'])).body.queued, 0, 'importing the same track twice queues nothing');

  const bad = writeFile(cli, 'bad.csv', 'recorded_at,latitude,longitude,speed\n2026-11-02T07:00:00Z,-1.2,36.8,4.5\n2026-11-02T07:00:01,-1.2,36.8,4\n2026-11-02T07:00:02Z,95,36.8,4\n');
  const invalid = await cli.run(['observations', 'import', bad, '--subject', 'Collar 7']);
  t.equal(invalid.code, 1);
  t.match(invalid.stdout, /3:1\s+error\s+point 2: recorded_at "2026-11-02T07:00:01" is not an ISO 8601 date-time with an offset/);
  t.match(invalid.stdout, /4:2\s+error\s+point 3: latitude is -90\.\.90/);
  const skipped = await cli.json(['observations', 'import', bad, '--subject', 'Collar 7', '--skip-invalid']);
  t.match(skipped.body, { valid: 1, queued: 1 });
  t.equal((await outboxOf(cli)).counts.pending, points + 1);

  // Killed once the server stored the second batch, before the CLI heard of it.
  let batches = 0;
  const child = spawnCli(['push', '--json'], cli.env);
  proxy.onResponse = (_i, method, path) => {
    if (method !== 'POST' || !path.includes('/sensors/')) return false;
    if (++batches < 2) return false;
    child.child.kill('SIGKILL');
    return true;
  };
  t.equal((await child.exited).signal, 'SIGKILL');
  proxy.onResponse = null;
  t.equal(await serverObservationCount(s, token), 2000, 'two batches of 1000 stored before the kill');

  proxy.requests.length = 0;
  const push = await cli.json(['push']);
  t.equal(push.code, 0, push.stderr);
  t.equal(push.body.sent, points + 1 - 1000);
  const posts = proxy.requests.filter((r) => r.method === 'POST');
  t.equal(posts.length, 3, 'the rest in batches: 1000 (a repeat, answered as duplicates), 1000, 501');
  t.equal(posts[0]!.status, 200, 'the batch stored before the kill came back as duplicates (200)');
  t.equal(await serverObservationCount(s, token), points + 1, 'every point on the server exactly once');
  const subjects = await s.json('/api/v1.0/subjects', { token });
  t.ok(subjects.body.data.some((x: any) => x.name === 'Collar 7' && x.last_position_date), 'the subject was created with its last position');
});
