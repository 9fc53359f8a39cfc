/**
 * A push whose answer is lost after the server committed (both databases): a proxy forwards the
 * batch, lets the server answer, and then cuts the CLI's connection instead of passing the
 * answer on. The repeat (the transport's own retry, or the next push) carries the same keys (the
 * outbox entries' ids) and each entry is answered its stored outcome (`replayed`): the entry is
 * `sent`, never a conflict (or a 409) with itself, and the server wrote once.
 */
import http from 'node:http';
import t from 'tap';
import type { Test } from 'tap';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { listenForTest } from '../helpers/test-listener.js';
import { EVENTS, outboxOf, sightingsCsv, syncedCli, writeFile } from './offline-fixtures.js';

interface Exchange {
  method: string;
  path: string;
  /** The keys the request carried: its Idempotency-Key, or a batch's entry keys. */
  keys: string[];
  status: number;
  /** Answered from the server's store: the whole answer (Idempotent-Replayed), or per batch entry. */
  replayed: boolean[];
  dropped: boolean;
}

interface DroppingProxy {
  url: string;
  /** Decides, once the server answered, whether the client gets the answer or a cut connection. */
  drop: ((method: string, path: string) => boolean) | null;
  exchanges: Exchange[];
}

const PUSH = '/api/fieldops/v1/sync/push';

async function startDroppingProxy(t: Test, target: string): Promise<DroppingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const proxy: DroppingProxy = { url: '', drop: null, exchanges: [] };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const method = request.method ?? '';
    const path = request.url ?? '';
    const sent = Buffer.concat(chunks);
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method, path, headers: request.headers, agent }, async (answer) => {
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      const body = Buffer.concat(parts);
      const dropped = proxy.drop?.(method, path) === true;
      const key = request.headers['idempotency-key'];
      let keys = typeof key === 'string' ? [key] : [];
      let replayed = [answer.headers['idempotent-replayed'] === 'true'];
      if (path === PUSH && answer.statusCode === 200) {
        keys = (JSON.parse(sent.toString()) as { entries: Array<{ key: string }> }).entries.map((e) => e.key);
        replayed = (JSON.parse(body.toString()) as { outcomes: Array<{ status: string }> }).outcomes.map((o) => o.status === 'replayed');
      }
      proxy.exchanges.push({ method, path, keys, status: answer.statusCode ?? 0, replayed, dropped });
      if (dropped) {
        response.socket?.destroy();
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(body);
    });
    forward.on('error', () => response.destroy());
    forward.end(sent);
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}

async function changesOf(s: TestServer, id: string): Promise<number> {
  const row = await s.server.runtime.database.knex('sync_changes').where({ kind: 'event', record_id: id }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Drops the answer of the first batched push, and passes every other exchange on. */
function dropFirstBatch(proxy: DroppingProxy): void {
  let seen = 0;
  proxy.drop = (m, path) => path === PUSH && ++seen === 1;
}

const batches = (proxy: DroppingProxy) => proxy.exchanges.filter((e) => e.path === PUSH);

t.test('a lost answer is never a conflict: the repeat is the stored answer, one write', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const create = async (notes: string) => {
    const created = await s.json(EVENTS, jsonBody({ event_type: 'wildlife_sighting', time: new Date().toISOString(), event_details: { notes } }, { token }));
    t.equal(created.status, 201);
    return created.body.id as string;
  };
  const retried = await create('answer lost, retried at once');
  const nextPush = await create('answer lost, sent by the next push');
  const proxy = await startDroppingProxy(t, s.url);
  const cli = await syncedCli(t, proxy.url);
  t.equal((await cli.json(['pull'])).code, 0);

  await t.test("an update: the transport's own retry", async (t) => {
    const queued = await cli.json(['events', 'state', retried, 'resolved']);
    t.equal(queued.code, 0, queued.stderr);
    const before = await changesOf(s, retried);
    proxy.exchanges.length = 0;
    dropFirstBatch(proxy);
    const push = await cli.json(['push'], { env: { FIELDOPS_RETRIES: '3', FIELDOPS_RETRY_DELAY_MS: '0' } });
    proxy.drop = null;
    t.equal(push.code, 0, push.stderr);
    t.match(push.body, { sent: 1, conflicts: [], rejected: [] });
    t.same(batches(proxy).map((e) => [e.status, e.dropped, e.replayed]), [[200, true, [false]], [200, false, [true]]], 'committed and cut, then replayed');
    t.same(batches(proxy).map((e) => e.keys), [[queued.body.id], [queued.body.id]], 'the outbox entry id as the key, both times');
    t.equal(await changesOf(s, retried), before + 1, 'one write on the server');
    t.equal((await s.json(`${EVENTS}/${retried}`, { token })).body.state, 'resolved');
  });

  await t.test('an update and a create: the next push (no retries)', async (t) => {
    const update = await cli.json(['events', 'state', nextPush, 'resolved']);
    t.equal(update.code, 0, update.stderr);
    const sheet = writeFile(cli, 'one.csv', sightingsCsv(1, Date.UTC(2026, 10, 2, 6, 0, 0)));
    t.equal((await cli.json(['events', 'import', sheet, '--type', 'wildlife_sighting'])).code, 0);
    const createEntry = (await outboxOf(cli)).entries.find((e) => e.kind === 'event.create' && e.status === 'pending')!;
    const before = await changesOf(s, nextPush);

    // The outbox holds the update, then the create: one batch, committed and cut.
    proxy.exchanges.length = 0;
    dropFirstBatch(proxy);
    const cut = await cli.json(['push']);
    proxy.drop = null;
    t.equal(cut.code, 1, 'the push stops at the cut batch');
    t.match(cut.body.stopped, /unreachable/);
    t.same(cut.body.conflicts, []);
    t.equal((await outboxOf(cli)).counts.pending, 2, 'nothing marked sent without an answer');
    // The next push: the same keys, answered from the store.
    const again = await cli.json(['push']);
    t.equal(again.code, 0, again.stderr);
    t.match(again.body, { sent: 2, conflicts: [], rejected: [] });
    t.same(batches(proxy).map((e) => [e.dropped, e.replayed]), [[true, [false, false]], [false, [true, true]]], 'each repeat answered from the store (not a conflict, not a 409)');
    t.same(batches(proxy)[1]!.keys, batches(proxy)[0]!.keys, 'with the same keys');
    t.equal(await changesOf(s, nextPush), before + 1, 'the update written once');
    t.equal((await s.json(`${EVENTS}/${nextPush}`, { token })).body.state, 'resolved');
    const entries = (await outboxOf(cli)).entries;
    t.equal(entries.find((e) => e.id === update.body.id)?.status, 'sent');
    t.equal(entries.find((e) => e.id === createEntry.id)?.status, 'sent');
    t.equal((await s.json(`${EVENTS}/${createEntry.id}`, { token })).status, 200, 'the create is on the server');
    t.equal(await changesOf(s, createEntry.id), 1, 'created once');
  });
});
