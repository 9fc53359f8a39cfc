/**
 * The worked example of cli/README.md, as written there: the demo tenant, the datasheet and the
 * GPS track in fixtures/datasheets/, recorded offline by the ranger and pushed once (both
 * databases).
 */
import path from 'node:path';
import t from 'tap';
import { loadDemoData } from '../../server/domain/demo.js';
import { packageRoot } from '../../server/domain/users/common-passwords.js';
import { startTestServer } from '../helpers/server.js';
import { serverEvents, syncedCli } from '../sync/offline-fixtures.js';

const sheets = path.join(packageRoot(), 'fixtures/datasheets');

t.test('the README example: a datasheet and a track recorded offline, pushed when back online', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { services, admin } = s.server.runtime;
  await loadDemoData({ services, admin }, path.join(packageRoot(), 'fixtures/demo'));
  const before = (await serverEvents(s, (await s.login()).access_token)).length;
  const cli = await syncedCli(t, s.url);

  const sheet = path.join(sheets, 'wildlife-sightings-2026-11-18.csv');
  const imported = await cli.json(['events', 'import', sheet, '--type', 'wildlife_sighting']);
  t.equal(imported.code, 0, JSON.stringify(imported.body.findings ?? imported.stderr));
  t.match(imported.body, { rows: 4, valid: 4, queued: 4 });
  const track = await cli.json(['observations', 'import', path.join(sheets, 'patrol-track-2026-11-18.gpx'), '--subject', 'Wanjiru Kamau']);
  t.match(track.body, { points: 6, queued: 6 });
  const patrol = await cli.json(['patrols', 'start', '--type', 'fence_patrol', '--title', 'Fence north', '--leader', 'Wanjiru Kamau']);
  t.equal(patrol.code, 0, patrol.stderr);
  t.equal((await cli.run(['patrols', 'note', patrol.body.id.slice(0, 8), 'Fence cut at km 4'])).code, 0);
  t.equal((await cli.run(['patrols', 'end', patrol.body.id.slice(0, 8)])).code, 0);

  const outbox = await cli.run(['outbox']);
  t.match(outbox.stdout, /13 pending, 0 sent, 0 rejected, 0 in conflict/);
  const push = await cli.json(['push']);
  t.equal(push.code, 0, push.stderr);
  // The 4 events in one batch, the 6 observations in one request, the patrol's 3 entries in one batch.
  t.match(push.body, { total: 13, sent: 13, requests: 1 + 1 + 1 });
  const token = (await s.login()).access_token;
  const events = await serverEvents(s, token);
  t.equal(events.length, before + 4);
  const rhino = events.find((e) => e.event_details.species === 'black_rhino');
  t.same(rhino?.event_details.behaviours, ['resting'], 'choices given by display were stored by value');
  t.equal((await cli.json(['events', 'import', sheet, '--type', 'wildlife_sighting'])).body.queued, 0, 'the same datasheet again queues nothing');
});
