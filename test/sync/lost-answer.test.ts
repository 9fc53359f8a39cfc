/**
 * A push whose answer is lost after the server committed (both databases): a proxy forwards the
 * request, lets the server answer, and then cuts the CLI's connection instead of passing the
 * answer on. The repeat (the transport's own retry, or the next push) carries the same
 * Idempotency-Key (the outbox entry's id) and is answered the stored answer: the entry is
 * `sent`, never a 412 or 409 conflict with itself, and the server wrote once.
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
  key: string | null;
  status: number;
  replayed: boolean;
  dropped: boolean;
}

interface DroppingProxy {
  url: string;
  /** Decides, once the server answered, whether the client gets the answer or a cut connection. */
  drop: ((method: string, path: string) => boolean) | null;
  exchanges: Exchange[];
}

async function startDroppingProxy(t: Test, target: string): Promise<DroppingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const proxy: DroppingProxy = { url: '', drop: null, exchanges: [] };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const method = request.method ?? '';
    const path = request.url ?? '';
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method, path, headers: request.headers, agent }, async (answer) => {
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      const dropped = proxy.drop?.(method, path) === true;
      const key = request.headers['idempotency-key'];
      proxy.exchanges.push({ method, path, key: typeof key === 'string' ? key : null, status: answer.statusCode ?? 0, replayed: answer.headers['idempotent-replayed'] === 'true', dropped });
      if (dropped) {
        response.socket?.destroy();
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(Buffer.concat(parts));
    });
    forward.on('error', () => response.destroy());
    forward.end(Buffer.concat(chunks));
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}

async function changesOf(s: TestServer, id: string): Promise<number> {
  const row = await s.server.runtime.database.knex('sync_changes').where({ kind: 'event', record_id: id }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Drops the answer of the first request with this method, and passes every other one on. */
function dropFirst(proxy: DroppingProxy, method: string): void {
  let seen = 0;
  proxy.drop = (m) => m === method && ++seen === 1;
}

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
    dropFirst(proxy, 'PATCH');
    const push = await cli.json(['push'], { env: { FIELDOPS_RETRIES: '3', FIELDOPS_RETRY_DELAY_MS: '0' } });
    proxy.drop = null;
    t.equal(push.code, 0, push.stderr);
    t.match(push.body, { sent: 1, conflicts: [], rejected: [] });
    const patches = proxy.exchanges.filter((e) => e.method === 'PATCH');
    t.same(patches.map((e) => [e.status, e.dropped, e.replayed]), [[200, true, false], [200, false, true]], 'committed and cut, then replayed');
    t.same(patches.map((e) => e.key), [queued.body.id, queued.body.id], 'the outbox entry id as the key, both times');
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

    // The outbox holds the update, then the create. First push: the PATCH is committed and cut.
    // Second: the PATCH again (answered from the store), then the POST, committed and cut.
    // Third: the POST again (answered from the store).
    const replays: Array<[string, number]> = [];
    for (const method of ['PATCH', 'POST']) {
      proxy.exchanges.length = 0;
      dropFirst(proxy, method);
      const cut = await cli.json(['push']);
      proxy.drop = null;
      t.equal(cut.code, 1, `the push stops at the cut ${method}`);
      t.match(cut.body.stopped, /unreachable/);
      t.same(cut.body.conflicts, []);
      t.ok(proxy.exchanges.some((e) => e.method === method && e.dropped && e.status < 300), `the server committed the ${method}`);
      for (const e of proxy.exchanges) if (e.replayed) replays.push([e.method, e.status]);
    }
    proxy.exchanges.length = 0;
    const again = await cli.json(['push']);
    t.equal(again.code, 0, again.stderr);
    t.match(again.body, { sent: 1, conflicts: [], rejected: [] });
    for (const e of proxy.exchanges) if (e.replayed) replays.push([e.method, e.status]);
    t.same(replays, [['PATCH', 200], ['POST', 201]], 'each repeat answered from the store (not 412, not 409)');
    t.equal(await changesOf(s, nextPush), before + 1, 'the update written once');
    t.equal((await s.json(`${EVENTS}/${nextPush}`, { token })).body.state, 'resolved');
    const entries = (await outboxOf(cli)).entries;
    t.equal(entries.find((e) => e.id === update.body.id)?.status, 'sent');
    t.equal(entries.find((e) => e.id === createEntry.id)?.status, 'sent');
    t.equal((await s.json(`${EVENTS}/${createEntry.id}`, { token })).status, 200, 'the create is on the server');
    t.equal(await changesOf(s, createEntry.id), 1, 'created once');
  });
});
