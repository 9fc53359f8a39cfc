/**
 * Issue 24 item 13 c and d: `fieldops push` with the server down is an error saying where it
 * could not reach and how many records stay queued (no "✔ 0 sent"); Ctrl-C (a real SIGINT to the
 * CLI process while a proxy holds its request) lets the request in flight finish, or abandons it
 * on a second Ctrl-C, and ends a wait to retry at once; then it says how many were sent and how
 * many are still queued, exit 130; a later push sends the rest, each record exactly once. Both
 * databases.
 */
import t from 'tap';
import { spawnCli } from '../helpers/cli-process.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startKillProxy } from '../sync/kill-proxy.js';
import { gpxTrack, outboxOf, serverEvents, sightingsCsv, syncedCli, writeFile } from '../sync/offline-fixtures.js';

const INTERRUPTED = /^interrupted: (\d+) sent, (\d+) still queued \(run `fieldops push` again\)$/m;

t.test('push with the server down', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  await seedCatalog(s, (await s.login()).access_token);
  const tcp = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(s.url).port) });
  const url = `http://127.0.0.1:${tcp.port}`;
  const cli = await syncedCli(t, url);
  t.equal((await cli.run(['events', 'import', writeFile(cli, 'sheet.csv', sightingsCsv(3)), '--type', 'wildlife_sighting'])).code, 0);
  await tcp.stop();

  const text = await cli.run(['push']);
  t.equal(text.code, 1);
  t.equal(text.stdout, '', 'no "✔ 0 sent": nothing was sent');
  t.match(text.stderr, new RegExp(`^error: push stopped: server unreachable at ${url.replace(/[.]/g, '\\.')}: connection refused`, 'm'));
  t.match(text.stderr, /^hint: 3 records are still queued; run `fieldops push` again when the server is reachable$/m);

  const json = await cli.json(['push']);
  t.equal(json.code, 1);
  t.match(json.body, { total: 3, sent: 0, stopped: /server unreachable/, interrupted: false, remaining: 3 });
  t.equal((await outboxOf(cli)).counts.pending, 3, 'all still queued');

  await t.test('Ctrl-C while it waits to retry: it stops at once, starting no retry', async (t) => {
    // Backoffs of 5 to 10 s, 19 of them: only a cut-short wait ends this push within the test's time.
    const child = spawnCli(['push'], { ...cli.env, FIELDOPS_RETRIES: '20', FIELDOPS_RETRY_DELAY_MS: '60000' });
    await child.waitForStderr(/retrying with backoff/);
    child.child.kill('SIGINT');
    const exit = await child.exited;
    t.equal(exit.code, 130, child.stderr());
    t.match(child.stderr(), /^interrupted: 0 sent, 3 still queued \(run `fieldops push` again\)$/m);
    t.notMatch(child.stderr(), /\n\s+at \S/, 'no stack');
    t.equal((await outboxOf(cli)).counts.pending, 3, 'all still queued');
  });
});

t.test('Ctrl-C during a push', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const proxy = await startKillProxy(t, s.url);
  const cli = await syncedCli(t, proxy.url);
  // Three requests' worth: 3 events (one batch), 2 observations (their own request), 3 events.
  const rows = 6;
  t.equal((await cli.run(['events', 'import', writeFile(cli, 'sheet.csv', sightingsCsv(3)), '--type', 'wildlife_sighting'])).code, 0);
  t.equal((await cli.run(['observations', 'import', writeFile(cli, 'track.gpx', gpxTrack(2)), '--subject', 'Collar 7'])).code, 0);
  t.equal((await cli.run(['events', 'import', writeFile(cli, 'more.csv', sightingsCsv(3, Date.UTC(2026, 10, 3, 6, 0, 0))), '--type', 'wildlife_sighting'])).code, 0);
  const queued = 8;

  /** Runs a push whose `nth` POST the proxy holds until `release` is called; resolves once it is held. */
  const pushHoldingPost = async (nth: number, args: string[] = ['push']) => {
    let posts = 0;
    let release = () => {};
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    proxy.onRequest = (_i, method) => {
      if (method !== 'POST' || ++posts !== nth) return;
      held();
      return new Promise<void>((resolve) => (release = resolve));
    };
    const child = spawnCli(args, cli.env);
    await holding;
    return { child, release: () => release() };
  };

  await t.test('first Ctrl-C: the request in flight finishes, no other starts', async (t) => {
    const { child, release } = await pushHoldingPost(1);
    child.child.kill('SIGINT');
    await child.waitForStderr(/interrupting: finishing the request in flight \(Ctrl-C again to abandon it/);
    release();
    const exit = await child.exited;
    proxy.onRequest = null;
    t.equal(exit.code, 130, child.stderr());
    t.match(child.stderr(), INTERRUPTED);
    const [, sent, left] = INTERRUPTED.exec(child.stderr())!;
    t.same([Number(sent), Number(left)], [3, queued - 3], 'the held batch was let through and counted');
    t.notMatch(child.stdout(), /✔/);
    t.equal((await serverEvents(s, token)).length, 3);
  });

  await t.test('second Ctrl-C: the request in flight is abandoned (--json too)', async (t) => {
    const { child } = await pushHoldingPost(1, ['push', '--json']);
    child.child.kill('SIGINT');
    await child.waitForStderr(/interrupting:/);
    child.child.kill('SIGINT');
    const exit = await child.exited;
    proxy.onRequest = null;
    t.equal(exit.code, 130, child.stderr());
    t.match(child.stderr(), /^interrupted: 0 sent, 5 still queued \(run `fieldops push` again\)$/m);
    t.match(JSON.parse(child.stdout()), { total: 5, sent: 0, stopped: 'interrupted', interrupted: true, remaining: 5 }, 'the report on stdout, whole');
    t.notMatch(child.stderr(), /\n\s+at \S/, 'no stack');
  });

  await t.test('the next push sends the rest, each event exactly once', async (t) => {
    const push = await cli.json(['push']);
    t.equal(push.code, 0, push.stderr);
    t.match(push.body, { total: 5, sent: 5, interrupted: false });
    const events = await serverEvents(s, token);
    t.equal(events.length, rows);
    t.equal(new Set(events.map((e) => e.id)).size, rows);
  });
});
