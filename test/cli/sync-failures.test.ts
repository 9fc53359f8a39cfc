/**
 * What a field laptop meets: a server that is down, a server that fails for a while, a server
 * that does not offer a resource, and a sync killed (SIGKILL) halfway, while downloading or
 * while writing the mirror. The mirror must always be the old state or the new one, whole.
 */
import t, { type Test } from 'tap';
import { bulkInsertPatrolTypes, bulkRename } from '../helpers/bulk-catalog.js';
import { cliEnv } from '../helpers/cli-env.js';
import { spawnCli } from '../helpers/cli-process.js';
import { dumpMirror, integrityCheck, type MirrorDump } from '../helpers/mirror-dump.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startWireProxy } from '../helpers/wire-proxy.js';

t.test('server errors, retries, a resource not offered, and a server that is down', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  await seedCatalog(s, (await s.login()).access_token);
  const proxy = await startWireProxy(t, s.url);
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '3' });
  t.equal((await cli.login(proxy.url)).code, 0);

  await t.test('5xx answers are retried with backoff, then the sync succeeds', async (t) => {
    proxy.reset();
    proxy.failNext(2, 503);
    const result = await cli.run(['sync']);
    t.equal(result.code, 0, result.stderr);
    t.equal((result.stderr.match(/HTTP 503; retrying with backoff/g) ?? []).length, 1, 'one line says it is retrying');
    t.notMatch(result.stderr, /retrying in/, 'no line per retry without a terminal');
    t.equal(proxy.exchanges.filter((e) => e.status === 503).length, 2);
    const usage = (e: { path: string }) => e.path.startsWith('/api/v2.0/activity/eventtypes/usage');
    t.equal(proxy.exchanges.filter((e) => e.status === 200 && !usage(e)).length, 4, 'then every resource read');
    t.equal(proxy.exchanges.filter((e) => e.status === 200 && usage(e)).length, 1, 'and, the event types having changed, their usage summaries once (issue 28)');
  });

  const synced = dumpMirror(cli.mirror);

  await t.test('a server failing every time: exit 1, a clear message, the mirror untouched', async (t) => {
    proxy.failNext(1000, 500);
    const result = await cli.run(['sync']);
    proxy.failNext(0);
    t.equal(result.code, 1);
    t.match(result.stderr, /error: http:\/\/127\.0\.0\.1:\d+ failed with HTTP 500 while reading the \w[\w -]+/);
    t.match(result.stderr, /hint: .*the mirror was not changed/);
    t.same(dumpMirror(cli.mirror), synced);
  });

  await t.test('a 404 for v2 event types means "not offered": recorded, the rest synced', async (t) => {
    proxy.override(/eventtypes/, 404);
    const { code, body, stderr } = await cli.json(['sync']);
    proxy.override(null);
    t.equal(code, 0, stderr);
    t.match(stderr, /warning: .* does not offer the v2 event types \(404\); kept what the mirror had/);
    t.same(body.resources.map((r: any) => [r.resource, r.outcome]), [['patrol_types', 'unchanged'], ['trackedby', 'unchanged'], ['event_types', 'not_offered'], ['choices', 'unchanged']]);
    const dump = dumpMirror(cli.mirror);
    t.equal(dump.checkpoints.find((c) => c.resource === 'event_types')!.status, 'not_offered');
    t.equal(dump.event_types.length, 1, 'the event types mirrored before are kept');
    const status = await cli.run(['status']);
    t.match(status.stdout, /event_types\s+not offered/);
    const next = await cli.json(['sync']);
    t.equal(next.body.resources[2].status, 200, 'offered again: read in full (no validators were kept)');
  });

  await t.test('server down: offline reads still work, sync exits 1, mirror unchanged', async (t) => {
    const before = dumpMirror(cli.mirror);
    await proxy.close();
    const result = await cli.run(['sync']);
    t.equal(result.code, 1);
    t.match(result.stderr, /error: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
    t.match(result.stderr, /hint: check the network and the server URL .*the mirror was not changed; offline commands .* still work/);
    t.equal((result.stderr.match(/retrying/g) ?? []).length, 1, 'one line that it is retrying (not one per retry), then the final error');
    t.equal(result.stderr.trim().split('\n').length, 3, 'three lines in all: retrying, error, hint');
    t.same(dumpMirror(cli.mirror), before, 'mirror unchanged');
    const list = await cli.run(['types', 'list']);
    t.equal(list.code, 0);
    t.match(list.stdout, /fence_patrol/);
    t.match((await cli.run(['types', 'show', 'fence_patrol', '--pre-render'])).stdout, /"const": "elephant"/);
    t.equal((await cli.run(['status'])).code, 0);
  });
});

t.test('a sync killed mid-way leaves the old mirror or the new one, never a mix', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const COUNT = 2000;
  const { knex } = s.server.runtime.database;
  await bulkInsertPatrolTypes(knex, COUNT);
  const proxy = await startWireProxy(t, s.url);
  const cli = cliEnv(t);
  t.equal((await cli.login(proxy.url)).code, 0);
  const first = await cli.run(['sync']);
  t.equal(first.code, 0, first.stderr);
  const stateA = dumpMirror(cli.mirror);
  t.equal(stateA.patrol_types.length, COUNT);
  await bulkRename(knex, ' (renamed)');

  const consistent = (t: Test, dump: MirrorDump) => {
    t.equal(integrityCheck(cli.mirror), 'ok', 'SQLite integrity');
    const renamed = dump.patrol_types.filter((p) => p.display.endsWith('(renamed)')).length;
    t.ok(renamed === 0 || renamed === COUNT, `all or none of the rows renamed (${renamed})`);
    const etag = dump.checkpoints.find((c) => c.resource === 'patrol_types')!.etag;
    if (renamed === 0) t.same(dump, stateA, 'exactly the old state, checkpoints included');
    else t.not(etag, stateA.checkpoints.find((c) => c.resource === 'patrol_types')!.etag, 'new data with its new checkpoint');
    return renamed === 0 ? 'old' : 'new';
  };

  await t.test('killed while downloading', async (t) => {
    proxy.throttle({ chunkBytes: 32 * 1024, intervalMs: 25 });
    const run = spawnCli(['sync'], cli.env);
    // The small resources are done; the 2.3 MiB catalog is still trickling in.
    await run.waitForStderr(/trackedby: HTTP \d+/);
    run.child.kill('SIGKILL');
    t.equal((await run.exited).signal, 'SIGKILL');
    proxy.throttle(null);
    t.equal(consistent(t, dumpMirror(cli.mirror)), 'old', 'nothing was written before the download finished');
  });

  await t.test('killed while writing the mirror', async (t) => {
    const run = spawnCli(['sync'], cli.env);
    // Printed from inside the transaction, after the first 250 of 2000 rows.
    await run.waitForStderr(/writing patrol_types: 250\/2000/);
    run.child.kill('SIGKILL');
    t.equal((await run.exited).signal, 'SIGKILL');
    const state = consistent(t, dumpMirror(cli.mirror));
    t.comment(`after the kill the mirror holds the ${state} state`);
  });

  await t.test('the next sync completes the change', async (t) => {
    const { code, body, stderr } = await cli.json(['sync']);
    t.equal(code, 0, stderr);
    const dump = dumpMirror(cli.mirror);
    t.equal(consistent(t, dump), 'new');
    t.equal(body.resources[0].items, COUNT);
  });
});
