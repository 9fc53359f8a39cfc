/**
 * The CLI's batched push (sync/push/run-push.ts) against a real HTTP server that answers per
 * protocol/push.ts (fake-push-server.ts), through the CLI's own transport stack (undici and
 * sync/retry.ts): batches within the entry and byte limits, a 429 without Retry-After halves the
 * batch, one with it is waited out (then the push stops, "server busy"), an older server's 404
 * falls back to one request per entry with Fieldops-Base-Revision, chained bases in one batch and
 * across batches, a conflict kept in outbox_conflicts and settled through `conflict.resolve`, and
 * a lost answer (the link cut by a TCP proxy after the server applied the batch) re-sent with the
 * same keys: replayed, never a conflict, each write once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import t from 'tap';
import type { Test } from 'tap';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { recordBase } from '../../sync/outbox/bases.js';
import { listConflicts, queueResolution } from '../../sync/outbox/conflicts.js';
import type { NewEntry } from '../../sync/outbox/model.js';
import { OutboxStore } from '../../sync/outbox/store.js';
import { runPush } from '../../sync/push/run-push.js';
import { withRetries } from '../../sync/retry.js';
import { createUndiciTransport } from '../../sync/transport.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startFakePushServer } from './fake-push-server.js';

async function mirror(t: Test): Promise<{ knex: Knex; outbox: OutboxStore }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'push-batches-'));
  const knex = (await openMirrorDatabase(path.join(dir, 'mirror.sqlite3'), { create: true }))!;
  t.teardown(async () => {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { knex, outbox: new OutboxStore(knex) };
}

/** The CLI's transport: undici, then bounded retries whose waits are recorded (and not slept). */
function transport(t: Test, attempts = 1) {
  const undici = createUndiciTransport({ timeoutMs: 10_000 });
  t.teardown(() => undici.close());
  const waits: number[] = [];
  const retrying = withRetries(undici, { attempts, baseDelayMs: 1, sleep: async (ms) => void waits.push(ms) });
  return { transport: retrying, waits };
}

let seq = 0;
const id = () => `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
const create = (extra: Record<string, unknown> = {}): NewEntry => {
  const key = id();
  return { id: key, kind: 'event.create', target: key, body: { id: key, event_type: 'sighting', state: 'new', ...extra } };
};
const update = (target: string, body: Record<string, unknown>, base: { entry?: string; revision?: number; after?: string }): NewEntry => ({
  id: id(), kind: 'event.update', target, body, baseEntry: base.entry ?? null, baseRevision: base.revision ?? null, dependsOn: base.after ?? null,
});
const statuses = async (outbox: OutboxStore) => (await outbox.list()).map((e) => e.status);
const batchSizes = (s: { exchanges: Array<{ path: string; keys: string[] }> }) => s.exchanges.filter((e) => e.path.endsWith('/sync/push')).map((e) => e.keys.length);

t.test('batches hold at most 500 entries and 3 MiB', async (t) => {
  const s = await startFakePushServer(t);
  const { outbox } = await mirror(t);
  await outbox.enqueue(Array.from({ length: 1100 }, () => create()));
  const report = await runPush({ transport: transport(t).transport, server: s.url, outbox });
  t.match(report, { total: 1100, sent: 1100, requests: 3, stopped: null, remaining: 0 });
  t.same(batchSizes(s), [500, 500, 100]);
  t.equal(s.events.size, 1100);

  s.exchanges.length = 0;
  const big = 'x'.repeat(400 * 1024);
  await outbox.enqueue(Array.from({ length: 10 }, () => create({ notes: big })));
  const second = await runPush({ transport: transport(t).transport, server: s.url, outbox });
  t.match(second, { sent: 10, remaining: 0 });
  t.ok(s.exchanges.length >= 2, 'split by size');
  t.ok(s.exchanges.every((e) => e.bytes <= 3 * 1024 * 1024 + 64), 'each request within 3 MiB');
  t.equal((await outbox.list({ status: ['sent'] }))[0]!.revision, 1, 'the revision answered is stored');
});

t.test('a 429 without Retry-After halves the batch', async (t) => {
  const s = await startFakePushServer(t);
  const { outbox } = await mirror(t);
  s.maxEntries = 100;
  await outbox.enqueue(Array.from({ length: 250 }, () => create()));
  const { transport: tr, waits } = transport(t, 3);
  const report = await runPush({ transport: tr, server: s.url, outbox });
  t.match(report, { sent: 250, remaining: 0, stopped: null });
  const sizes = batchSizes(s);
  t.same(sizes.slice(0, 3), [250, 125, 62], 'halved until it fits');
  t.ok(sizes.slice(2).every((n) => n <= 62), 'and kept small for the rest');
  t.same(waits, [], 'never retried as it was: it can never fit');
});

t.test('a 429 with Retry-After is waited out, then the push stops: server busy', async (t) => {
  const s = await startFakePushServer(t);
  const { outbox } = await mirror(t);
  await outbox.enqueue([create(), create()]);
  s.busy = { count: 2, retryAfter: 2 };
  const first = transport(t, 3);
  const report = await runPush({ transport: first.transport, server: s.url, outbox });
  t.match(report, { sent: 2, stopped: null });
  t.same(first.waits, [2000, 2000], 'Retry-After honoured');

  await outbox.enqueue([create()]);
  s.busy = { count: 10, retryAfter: 7 };
  const second = transport(t, 3);
  const busy = await runPush({ transport: second.transport, server: s.url, outbox });
  t.equal(busy.stopped, 'server busy; retry in 7 s');
  t.equal(second.waits.length, 2, 'at most the retries allowed');
  t.equal(busy.remaining, 1, 'the entry stays queued');
});

t.test('an older server (404) gets one request per entry, with Fieldops-Base-Revision', async (t) => {
  const s = await startFakePushServer(t);
  const { outbox } = await mirror(t);
  s.batched = false;
  const pulled = create();
  await outbox.enqueue([pulled]);
  t.match(await runPush({ transport: transport(t).transport, server: s.url, outbox }), { sent: 1, requests: 1 }, 'the 404 is not counted');
  s.exchanges.length = 0;
  const a = update(pulled.target!, { state: 'active' }, { revision: 1 });
  const b = update(pulled.target!, { priority: 300 }, { entry: a.id });
  await outbox.enqueue([a, b]);
  const report = await runPush({ transport: transport(t).transport, server: s.url, outbox });
  t.match(report, { sent: 2, conflicts: [], rejected: [] });
  const patches = s.exchanges.filter((e) => e.method === 'PATCH');
  t.same(patches.map((e) => e.headers['fieldops-base-revision']), ['1', '2'], 'the second based on the first one\'s answer');
  t.ok(patches.every((e) => e.headers['if-match'] === undefined), 'no If-Match');
  t.same(patches.map((e) => e.keys[0]), [a.id, b.id], 'keyed by entry id');
});

t.test('chained bases: in one batch by entry, across batches by the revision answered', async (t) => {
  const s = await startFakePushServer(t);
  const { outbox } = await mirror(t);
  const made = create();
  const u1 = update(made.target!, { state: 'active' }, { entry: made.id, after: made.id });
  const u2 = update(made.target!, { state: 'resolved' }, { entry: u1.id, after: made.id });
  await outbox.enqueue([made, u1, u2]);
  t.match(await runPush({ transport: transport(t).transport, server: s.url, outbox }), { sent: 3, conflicts: [] });
  const wires = s.exchanges[0]!.entries;
  t.same(wires.map((w) => w.base), [undefined, { entry: made.id }, { entry: u1.id }]);
  t.same(wires.map((w) => w.after), [undefined, [made.id], [made.id]]);
  t.equal(s.events.get(made.target!)!.fields.state, 'resolved');

  // Recorded now, the next edit is based on the revision the last one was answered with.
  const base = await recordBase(outbox, 'event', made.target!, null);
  t.match(base, { baseEntry: null, baseRevision: 3, dependsOn: null });
  // A base entry the server refused: the next one goes on that entry's own base.
  s.exchanges.length = 0;
  const bad = update(made.target!, { reject: true }, { revision: 3 });
  const next = update(made.target!, { priority: 200 }, { entry: bad.id });
  await outbox.enqueue([bad, next]);
  const report = await runPush({ transport: transport(t).transport, server: s.url, outbox });
  t.match(report, { sent: 1, rejected: [{ id: bad.id }] });
  const sent = s.exchanges.flatMap((e) => e.entries).filter((w) => w.key === next.id);
  t.same(sent.map((w) => w.base), [{ entry: bad.id }, { revision: 3 }], 'failed on the refused base, then sent on its own base');
  t.equal((await outbox.get(next.id))!.status, 'sent');
});

t.test('a conflict is kept in outbox_conflicts and settled by a queued resolution', async (t) => {
  const s = await startFakePushServer(t);
  const { knex, outbox } = await mirror(t);
  const made = create();
  await outbox.enqueue([made]);
  await runPush({ transport: transport(t).transport, server: s.url, outbox });
  s.change(made.target!, 'state', 'active');
  s.change(made.target!, 'title', 'from the office');
  const mine = update(made.target!, { state: 'resolved', priority: 300 }, { revision: 1 });
  await outbox.enqueue([mine]);
  const report = await runPush({ transport: transport(t).transport, server: s.url, outbox });
  t.match(report, { sent: 0, conflicts: [{ id: mine.id, reason: /conflict on state/ }] });
  const entry = (await outbox.get(mine.id))!;
  t.match(entry, { status: 'conflict', revision: 4, outcome: { status: 'conflict' } });
  const rows = await listConflicts(knex, { entryId: mine.id });
  t.match(rows, [{ field: 'state', mine: 'resolved', theirs: 'active', status: 'open', policy: 'hold' }]);
  t.equal(s.events.get(made.target!)!.fields.priority, 300, 'the other field applied');

  const queued = await queueResolution(outbox, entry, 'theirs');
  t.equal(queued.length, 1);
  t.same(await queueResolution(outbox, entry, 'theirs'), [], 'queued once');
  const resolved = await runPush({ transport: transport(t).transport, server: s.url, outbox });
  t.match(resolved, { sent: 1 });
  t.match(await listConflicts(knex, { entryId: mine.id }), [{ status: 'settled', settledBy: 'theirs' }]);
  t.equal((await outbox.get(mine.id))!.status, 'sent', 'every field settled: sent');
  t.equal(s.conflicts.get(rows[0]!.id)!.status, 'settled');
});

t.test('a lost answer is re-sent with the same keys: replayed, never a conflict', async (t) => {
  const s = await startFakePushServer(t);
  const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(s.url).port) });
  const via = `http://127.0.0.1:${proxy.port}`;
  const { outbox } = await mirror(t);
  const cut = async () => {
    s.afterApply = null;
    await proxy.stop();
    await proxy.start();
  };

  // The transport's own retry.
  const made = create();
  const u1 = update(made.target!, { state: 'active' }, { entry: made.id, after: made.id });
  await outbox.enqueue([made, u1]);
  s.afterApply = cut;
  const report = await runPush({ transport: transport(t, 3).transport, server: via, outbox });
  t.match(report, { sent: 2, conflicts: [], rejected: [], stopped: null });
  t.same(batchSizes(s), [2, 2], 'the same batch twice');
  t.same(s.exchanges[1]!.keys, s.exchanges[0]!.keys, 'with the same keys');
  t.equal(s.writes, 2, 'each written once');
  t.same((await outbox.list()).map((e) => e.outcome?.status), ['replayed', 'replayed']);

  // No retry (a kill, or the retries spent): nothing is marked sent; the next push replays.
  const u2 = update(made.target!, { state: 'resolved' }, { entry: u1.id });
  await outbox.enqueue([u2]);
  s.afterApply = cut;
  const stopped = await runPush({ transport: transport(t, 1).transport, server: via, outbox });
  t.match(stopped, { sent: 0, remaining: 1, stopped: /unreachable/ });
  t.same(await statuses(outbox), ['sent', 'sent', 'pending'], 'not marked sent without an answer');
  const again = await runPush({ transport: transport(t, 1).transport, server: via, outbox });
  t.match(again, { sent: 1, conflicts: [], remaining: 0 });
  t.equal((await outbox.get(u2.id))!.outcome?.status, 'replayed');
  t.equal(s.writes, 3, 'the update written once');
  t.equal(s.events.get(made.target!)!.fields.state, 'resolved');
});
