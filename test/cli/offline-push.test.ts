/**
 * The offline write path end to end, with the real CLI against a real server (both databases):
 * a datasheet validated and queued offline, importing twice queues nothing, a push killed with
 * SIGKILL before a request reached the server and after the server committed one, a server
 * going away mid-push (a TCP proxy the test cuts), two pushes of one mirror at once, rejections
 * that do not stop the push, 5xx that does, and a 409 with other content (a conflict).
 */
import t from 'tap';
import { spawnCli } from '../helpers/cli-process.js';
import { startTestServer, jsonBody } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startWireProxy } from '../helpers/wire-proxy.js';
import { startKillProxy } from '../sync/kill-proxy.js';
import { EVENTS, outboxOf, serverEvents, sightingsCsv, syncedCli, writeFile } from '../sync/offline-fixtures.js';

t.test('import, push exactly once through kill -9 at any point', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const proxy = await startKillProxy(t, s.url);
  const cli = await syncedCli(t, proxy.url);
  const rows = 40;
  const sheet = writeFile(cli, 'sightings.csv', sightingsCsv(rows));

  const first = await cli.run(['events', 'import', sheet, '--type', 'wildlife_sighting', '--json']);
  t.equal(first.code, 0, first.stderr);
  t.match(JSON.parse(first.stdout), { rows, valid: rows, invalid: 0, queued: rows });
  const again = await cli.run(['events', 'import', sheet, '--type', 'wildlife_sighting', '--json']);
  t.equal(again.code, 0, again.stderr);
  t.match(JSON.parse(again.stdout), { rows, queued: 0, already_queued: rows }, 'importing the same datasheet twice queues nothing');
  t.equal((await outboxOf(cli)).counts.pending, rows);
  const ids = new Set((await outboxOf(cli)).entries.map((e) => e.id));

  // Kill points: as the batch arrives (the server never sees it), then after the server committed
  // it but before the CLI learnt it (all 40 entries go in one batch).
  const kills: Array<['request' | 'response', number]> = [['request', 1], ['response', 1]];
  for (const [when, nth] of kills) {
    let posts = 0;
    const child = spawnCli(['push', '--json'], cli.env);
    const hook = (_i: number, method: string) => {
      if (method !== 'POST') return false;
      posts++;
      if (posts < nth) return false;
      child.child.kill('SIGKILL');
      return true;
    };
    proxy.onRequest = when === 'request' ? hook : null;
    proxy.onResponse = when === 'response' ? hook : null;
    const exit = await child.exited;
    proxy.onRequest = proxy.onResponse = null;
    t.equal(exit.signal, 'SIGKILL', `push killed at the ${when} of a POST`);
    if (when === 'request') t.equal((await serverEvents(s, token)).length, 0, 'killed before the server saw the batch');
  }
  t.equal((await serverEvents(s, token)).length, rows, 'the batch committed before the kill');
  t.equal((await outboxOf(cli)).counts.pending, rows, 'and nothing marked sent without its answer');

  proxy.requests.length = 0;
  const push = await cli.json(['push']);
  t.equal(push.code, 0, push.stderr);
  t.equal(push.body.sent, push.body.total);
  // The events the server committed before a kill are sent again with the same keys and answered
  // from the server's store (replayed), never a 409 with themselves (docs/sync.md §18).
  t.equal(push.body.already_there, 0, 'no event came back as 409');
  t.equal(proxy.requests.filter((r) => r.method === 'POST' && r.status === 409).length, 0, 'none posted twice');

  const events = await serverEvents(s, token);
  t.equal(events.length, rows, 'every record on the server exactly once');
  t.same(new Set(events.map((e) => e.id)), ids, 'with the ids recorded offline');
  t.same(events.filter((e) => e.event_details.species === 'lion').length, rows / 2, 'choices given by display were stored by value');
  t.equal((await outboxOf(cli)).counts.sent, rows);

  const nothing = await cli.json(['push']);
  t.equal(nothing.code, 0);
  t.equal(nothing.body.total, 0, 'a second push sends nothing');
});

t.test('the server going away mid-push, then coming back', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const tcp = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(s.url).port) });
  const cli = await syncedCli(t, `http://127.0.0.1:${tcp.port}`);
  // Three batches (500, 500, 200): the link is cut while the server holds some and not all.
  const rows = 1200;
  t.equal((await cli.run(['events', 'import', writeFile(cli, 'big.csv', sightingsCsv(rows)), '--type', 'wildlife_sighting'])).code, 0);

  const child = spawnCli(['push', '--json'], cli.env);
  // Cut the connection once the server holds some of the events.
  for (;;) {
    // NOTE: a poll may meet a kept-alive socket the busy server closed (ECONNRESET): poll again.
    const count = await serverEvents(s, token).then((events) => events.length, () => 0);
    if (count >= 20) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await tcp.stop();
  const exit = await child.exited;
  t.equal(exit.code, 1, 'the push stops with an error');
  t.match(child.stderr(), /error: push stopped: .*unreachable/);
  t.match(child.stderr(), /hint: \d+ records are still queued; run `fieldops push` again/);
  const between = (await serverEvents(s, token)).length;
  t.ok(between < rows, `cut mid-push (${between} of ${rows})`);

  await tcp.start();
  // The server may still be running the cut batch: a second batch of this user is then a 429
  // with Retry-After, waited out by the transport's retries.
  const push = await cli.json(['push'], { env: { FIELDOPS_RETRIES: '10' } });
  t.equal(push.code, 0, push.stderr);
  const events = await serverEvents(s, token);
  t.equal(events.length, rows, 'every record exactly once');
  t.equal(new Set(events.map((e) => e.id)).size, rows);
});

t.test('two pushes of one mirror at once send nothing twice', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const wire = await startWireProxy(t, s.url);
  const cli = await syncedCli(t, wire.url);
  const rows = 60;
  t.equal((await cli.run(['events', 'import', writeFile(cli, 'two.csv', sightingsCsv(rows)), '--type', 'wildlife_sighting'])).code, 0);
  wire.reset();
  const a = spawnCli(['push', '--json'], cli.env);
  const b = spawnCli(['push', '--json'], cli.env);
  const [ea, eb] = await Promise.all([a.exited, b.exited]);
  t.equal(ea.code, 0, a.stderr());
  t.equal(eb.code, 0, b.stderr());
  const posts = wire.exchanges.filter((e) => e.method === 'POST');
  t.ok(posts.length > 0 && posts.every((e) => e.path === '/api/fieldops/v1/sync/push' && e.status === 200), 'batches only, each answered');
  const reports = [JSON.parse(a.stdout()), JSON.parse(b.stdout())];
  t.equal(reports[0].sent + reports[1].sent, rows, 'the second push waited for the first and found nothing left');
  t.equal(posts.length, 1, 'one batch in all');
  t.equal((await serverEvents(s, token)).length, rows);
});

t.test('rejections continue, 5xx stops, a 409 with other content is a conflict', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const seeded = await seedCatalog(s, token);
  const wire = await startWireProxy(t, s.url);
  const cli = await syncedCli(t, wire.url);
  const record = async (species: string, notes: string) => {
    const result = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', JSON.stringify({ species, notes }), '--location', '-1.3,36.8']);
    t.equal(result.code, 0, result.stderr);
    return result.body.id as string;
  };
  const ok1 = await record('elephant', 'one');
  const rhino = await record('rhino', 'two');
  const ok2 = await record('lion', 'three');
  const clash = await record('elephant', 'four');

  await t.test('an invalid event is refused offline with the field and a hint', async (t) => {
    const bad = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', '{"species": "zebra"}']);
    t.equal(bad.code, 1);
    t.match(bad.stderr, /error: the event is not valid for wildlife_sighting:\n\s+\/event_details\/species/);
    t.match(bad.stderr, /hint: `fieldops types show wildlife_sighting --pre-render`/);
  });

  await t.test('5xx stops the push and keeps everything queued', async (t) => {
    wire.override(/sync\/push|activity\/events/, 503);
    const result = await cli.run(['push']);
    wire.override(null);
    t.equal(result.code, 1);
    t.match(result.stderr, /error: push stopped: the server answered HTTP 503/);
    t.equal((await outboxOf(cli)).counts.pending, 4);
  });

  // Meanwhile on the server: rhino is no longer a choice, and someone else used one of our ids.
  const rhinoChoice = await s.json(`/api/v2.0/choices/${seeded.choices.rhino}`, { ...jsonBody({ is_active: false }), method: 'PATCH', token });
  t.equal(rhinoChoice.status, 200, JSON.stringify(rhinoChoice.body));
  const taken = await s.json(EVENTS, jsonBody({ id: clash, event_type: 'wildlife_sighting', event_details: { notes: 'not ours' } }, { token }));
  t.equal(taken.status, 201);

  const push = await cli.json(['push']);
  t.equal(push.code, 1, 'exit 1: something was rejected or conflicted');
  t.equal(push.body.sent, 2);
  t.same(push.body.rejected.map((r: any) => r.id), [rhino]);
  t.match(push.body.rejected[0].reason, /HTTP 400: .*species/);
  t.same(push.body.conflicts.map((c: any) => c.id), [clash]);
  const ids = (await serverEvents(s, token)).map((e) => e.id);
  t.ok(ids.includes(ok1) && ids.includes(ok2), 'the records after the rejected one were sent');
  t.notOk(ids.includes(rhino));

  const list = await cli.run(['outbox']);
  t.match(list.stdout, new RegExp(`${rhino}.*rejected.*HTTP 400`));
  t.match(list.stdout, /0 pending, 2 sent, 1 rejected, 1 in conflict/);
  const show = await cli.json(['outbox', 'show', clash.slice(0, 8)]);
  t.equal(show.body.theirs.record.event_details.notes, 'not ours', 'both versions shown');
  t.equal(show.body.body.event_details.notes, 'four');

  const resolved = await cli.json(['outbox', 'resolve', clash, '--theirs']);
  t.equal(resolved.body.status, 'dropped');
  const dropped = await cli.json(['outbox', 'drop', rhino]);
  t.equal(dropped.body.status, 'dropped');
  const final = await cli.json(['push']);
  t.equal(final.code, 0);
  t.equal(final.body.total, 0);
});
