/**
 * Random interleavings of offline and headquarters edits of one event (issue 26 §3, plan §3
 * "Property test"), on the dialect under test (CI runs both): 100 runs, a fixed seed printed on
 * failure. The laptop's edits go through the real outbox (OutboxStore, recordBase's chained
 * bases) and the real batched push (runPush) to the in-process app behind a real listener;
 * headquarters edits over HTTP, blind or with its current revision. A dropped answer (the
 * transport loses the answer after the server committed) is followed by the re-sent batch.
 * After the run every open conflict is settled (mine or theirs, queued by queueResolution),
 * pushed, and pulled. Properties:
 * - nothing left in the outbox, and the laptop's pulled copy equals the server;
 * - every value either side wrote is in the record's history, its conflicts, or its state;
 * - when the two sides changed disjoint fields there is no conflict;
 * - a re-sent batch changes nothing (revision and history unchanged);
 * - the final state is the fold of the history over the created record (the oracle's view:
 *   the history is the whole truth of the record).
 * - each laptop update based on a pulled revision wrote and conflicted as three-way.ts says over
 *   the history rows between its base and its answer (the pure oracle).
 * Not modelled here: the patrol, explicit batch splits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { recordBase } from '../../sync/outbox/bases.js';
import { listConflicts, queueResolution } from '../../sync/outbox/conflicts.js';
import { newId } from '../../sync/outbox/ids.js';
import { OutboxStore } from '../../sync/outbox/store.js';
import { threeWayMerge, type HistoryStep } from '../../server/domain/merge/three-way.js';
import { runPush } from '../../sync/push/run-push.js';
import { TransportError, createUndiciTransport, type Transport } from '../../sync/transport.js';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { CONFLICTS, ONE, createSightingType, history } from '../server/merge/merge-support.js';

const SEED = Number(process.env.FIELDOPS_PROPERTY_SEED ?? 20261126);
const RUNS = 100;
const FIELDS = ['title', 'state', 'priority', 'a', 'b'] as const;
type Field = (typeof FIELDS)[number];
type Values = Record<Field, unknown>;
const POLICIES = ['hold', 'server_wins', 'last_writer_wins'] as const;

const valueArb: Record<Field, fc.Arbitrary<unknown>> = {
  title: fc.constantFrom('T1', 'T2', 'T3', 'T4'),
  state: fc.constantFrom('new', 'active', 'resolved'),
  priority: fc.constantFrom(0, 100, 200, 300),
  a: fc.integer({ min: 0, max: 3 }),
  b: fc.integer({ min: 0, max: 3 }),
};
const changesArb = fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 3 }).chain((fields) =>
  fc.tuple(...fields.map((f) => valueArb[f].map((v) => [f, v] as const))).map((pairs) => Object.fromEntries(pairs) as Partial<Values>),
);
type Command =
  | { op: 'laptop'; changes: Partial<Values> }
  | { op: 'server'; changes: Partial<Values>; withBase: boolean }
  | { op: 'push'; drop: boolean }
  | { op: 'pull' }
  | { op: 'resolve'; choice: 'mine' | 'theirs' };
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: changesArb.map((changes) => ({ op: 'laptop' as const, changes })) },
  { weight: 3, arbitrary: fc.tuple(changesArb, fc.boolean()).map(([changes, withBase]) => ({ op: 'server' as const, changes, withBase })) },
  { weight: 2, arbitrary: fc.boolean().map((drop) => ({ op: 'push' as const, drop })) },
  { weight: 1, arbitrary: fc.constant({ op: 'pull' as const }) },
  { weight: 1, arbitrary: fc.constantFrom('mine' as const, 'theirs' as const).map((choice) => ({ op: 'resolve' as const, choice })) },
);
const runArb = fc.record({ policy: fc.constantFrom(...POLICIES), commands: fc.array(commandArb, { minLength: 1, maxLength: 10 }), finalChoice: fc.constantFrom('mine' as const, 'theirs' as const) });

/** The record's fields as the merge names them (details by key). */
function fieldsOf(body: any): Values {
  return { title: body.title, state: body.state, priority: body.priority, a: body.event_details?.a ?? null, b: body.event_details?.b ?? null };
}
const PATH: Record<Field, string> = { title: 'title', state: 'state', priority: 'priority', a: 'event_details.a', b: 'event_details.b' };

/** An update body: details are sent whole (as the CLI and the web app do), the rest by field. */
function bodyOf(changes: Partial<Values>, view: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of ['title', 'state', 'priority'] as const) if (f in changes) body[f] = changes[f];
  if ('a' in changes || 'b' in changes) {
    const details: Record<string, unknown> = {};
    for (const k of ['a', 'b'] as const) {
      const v = k in changes ? changes[k] : view[k];
      if (v !== null && v !== undefined) details[k] = v;
    }
    body.event_details = details;
  }
  return body;
}

// 100 runs of several pushes each: allowed more than tap's 180 s (PostgreSQL is slower).
t.setTimeout(600_000);

t.test(`merge property: ${RUNS} interleavings (${dialect}, seed ${SEED})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await createSightingType(s, token);
  const undici = createUndiciTransport({ timeoutMs: 10_000 });
  t.teardown(() => undici.close());
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-property-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const read = async (id: string) => {
    const got = await s.json(`${ONE}/${id}`, { token });
    if (got.status !== 200) throw new Error(`read: ${got.status}`);
    return got.body;
  };
  let run = 0;
  let oracleChecked = 0;
  let conflictsSeen = 0;

  const property = fc.asyncProperty(runArb, async ({ policy, commands, finalChoice }) => {
    run++;
    await s.server.runtime.admin.setConflictPolicy('default', policy);
    const knex = (await openMirrorDatabase(path.join(root, `run-${run}.sqlite3`), { create: true }))!;
    try {
      const outbox = new OutboxStore(knex);
      let drop = false;
      let dropped = 0;
      const transport: Transport = async (request) => {
        const answer = await undici({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}`, 'fieldops-client-id': 'property-laptop' } });
        if (drop && request.url.endsWith('/sync/push')) {
          drop = false;
          dropped++;
          throw new TransportError('the answer was lost', request.url, 'ECONNRESET');
        }
        return answer;
      };
      const push = () => runPush({ transport, server: s.url, outbox });

      const created = await s.json('/api/v1.0/activity/events', send('POST', { event_type: 'sighting', title: 'T0', state: 'new', priority: 0, event_details: { a: 0 } }, token));
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id as string;
      const initial = fieldsOf(created.body);
      let pulled = { revision: created.body.revision as number, fields: initial };
      let view: Values = { ...initial };
      const written: Array<[Field, unknown]> = [];
      const laptopTouched = new Set<Field>();
      const serverTouched = new Set<Field>();

      /**
       * Queues a settlement of every open conflict, as a person would: of a field in conflict in
       * several chained entries, `mine` is chosen on the latest only (queueResolution then
       * settles the earlier ones as theirs, so they write nothing and the latest is not stale);
       * `theirs` on each.
       */
      const resolveOpen = async (choice: 'mine' | 'theirs') => {
        const open = await listConflicts(knex, { status: ['open'] });
        const entries = await outbox.getMany([...new Set(open.map((c) => c.entryId))]);
        const latest = new Map<string, string>();
        for (const c of [...open].sort((x, y) => entries.get(x.entryId)!.seq - entries.get(y.entryId)!.seq)) latest.set(c.field, c.entryId);
        for (const c of open) {
          const entry = entries.get(c.entryId);
          if (!entry) continue;
          if (choice === 'theirs') await queueResolution(outbox, entry, 'theirs', c.field);
          else if (latest.get(c.field) === c.entryId) await queueResolution(outbox, entry, 'mine', c.field);
        }
      };
      const pushAndReplay = async (withDrop: boolean) => {
        drop = withDrop;
        const first = await push();
        if (!withDrop || dropped === 0) return;
        // The batch was committed and its answer lost: the re-sent batch must change nothing.
        const revision = (await read(id)).revision;
        const rows = (await s.json(history('event', id), { token })).body.revisions.length;
        t.ok(first.stopped, 'the lost answer stops the push');
        const again = await push();
        if (again.stopped) throw new Error(`re-sent batch stopped: ${again.stopped}`);
        const after = await read(id);
        if (after.revision !== revision) throw new Error(`a replay wrote: revision ${revision} → ${after.revision}`);
        const rowsAfter = (await s.json(history('event', id), { token })).body.revisions.length;
        if (rowsAfter !== rows) throw new Error(`a replay added history rows: ${rows} → ${rowsAfter}`);
        dropped = 0;
      };

      for (const command of commands) {
        switch (command.op) {
          case 'laptop': {
            const base = await recordBase(outbox, 'event', id, { revision: pulled.revision, etag: null });
            await outbox.enqueue([{ id: newId(), kind: 'event.update', target: id, body: bodyOf(command.changes, view), baseRevision: base.baseRevision, baseEntry: base.baseEntry, baseEtag: base.baseEtag, dependsOn: base.dependsOn }]);
            for (const [f, v] of Object.entries(command.changes) as Array<[Field, unknown]>) {
              written.push([f, v]);
              laptopTouched.add(f);
              view = { ...view, [f]: v };
            }
            break;
          }
          case 'server': {
            const current = await read(id);
            const headers: Record<string, string> = command.withBase ? { 'Fieldops-Base-Revision': String(current.revision) } : {};
            const init = send('PATCH', bodyOf(command.changes, fieldsOf(current)), token);
            const patched = await s.json(`${ONE}/${id}`, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
            if (patched.status !== 200) throw new Error(`HQ edit: ${patched.status} ${JSON.stringify(patched.body)}`);
            for (const [f, v] of Object.entries(command.changes) as Array<[Field, unknown]>) {
              written.push([f, v]);
              serverTouched.add(f);
            }
            break;
          }
          case 'push':
            await pushAndReplay(command.drop);
            break;
          case 'pull': {
            const body = await read(id);
            pulled = { revision: body.revision, fields: fieldsOf(body) };
            view = { ...pulled.fields };
            break;
          }
          case 'resolve':
            await resolveOpen(command.choice);
            break;
        }
      }

      // Settle everything, push until quiet, pull.
      for (let round = 0; round < 4; round++) {
        // A mine refused as stale (HQ changed the field after the conflict) is settled with theirs next.
        await resolveOpen(round === 0 ? finalChoice : 'theirs');
        await pushAndReplay(false);
        const c = await outbox.counts();
        if (c.pending === 0 && c.conflict === 0) break;
      }
      const counts = await outbox.counts();
      const refused = (await outbox.list({ status: ['rejected'] })).filter((e) => !(e.kind === 'conflict.resolve' && e.outcome?.error?.code === 'conflict_stale'));
      if (counts.pending !== 0 || counts.conflict !== 0 || refused.length) throw new Error(`outbox not settled: ${JSON.stringify(counts)} ${JSON.stringify(await outbox.list({ status: ['pending', 'conflict', 'rejected'] }))}`);
      const final = await read(id);
      pulled = { revision: final.revision, fields: fieldsOf(final) };
      const server = fieldsOf(await read(id));
      if (JSON.stringify(pulled.fields) !== JSON.stringify(server)) throw new Error('the pulled copy differs from the server');

      const h = (await s.json(history('event', id), { token })).body;
      const conflicts = (await s.json(`${CONFLICTS}?record=${id}`, { token })).body.conflicts as Array<{ field: string; mine: unknown; theirs: unknown; status: string }>;
      // Oracle: the created record with every history row's changes applied in order.
      const folded: Record<string, unknown> = Object.fromEntries(FIELDS.map((f) => [PATH[f], initial[f]]));
      for (const row of [...h.revisions].sort((x: any, y: any) => x.revision - y.revision)) {
        for (const [p, change] of Object.entries(row.fields ?? {}) as Array<[string, [unknown, unknown]]>) folded[p] = change[1];
      }
      for (const f of FIELDS) {
        if (JSON.stringify(folded[PATH[f]] ?? null) !== JSON.stringify(server[f] ?? null)) throw new Error(`history fold ≠ state on ${f}: ${JSON.stringify(folded[PATH[f]])} vs ${JSON.stringify(server[f])}`);
      }
      // Oracle per laptop entry based on a pulled revision: three-way.ts over the history rows
      // between its base and its answer gives the same writes and the same conflicts.
      const rows = [...h.revisions].sort((x: any, y: any) => x.revision - y.revision) as Array<{ revision: number; fields: Record<string, [unknown, unknown]> }>;
      const stateAt = (revision: number) => {
        const values = new Map<string, unknown>(FIELDS.map((f) => [PATH[f], initial[f] ?? null]));
        for (const row of rows) if (row.revision <= revision) for (const [p, change] of Object.entries(row.fields ?? {})) values.set(p, change[1] ?? null);
        return values;
      };
      for (const entry of await outbox.list({ status: ['sent', 'conflict'] })) {
        const answered = entry.outcome;
        if (entry.kind !== 'event.update' || entry.baseEntry || typeof entry.baseRevision !== 'number' || !answered || typeof answered.revision !== 'number') continue;
        const at: number = answered.revision;
        const body = entry.body as Record<string, any>;
        const mine = new Map<string, unknown>();
        for (const f of ['title', 'state', 'priority'] as const) if (f in body) mine.set(f, body[f]);
        const row = rows.find((r) => r.revision === at);
        const before = stateAt(at - 1);
        if (body.event_details) for (const k of ['a', 'b']) mine.set(`event_details.${k}`, body.event_details[k] ?? null);
        const steps: HistoryStep[] = rows.filter((r) => r.revision > entry.baseRevision! && r.revision < at).map((r) => ({ revision: r.revision, fields: r.fields ?? {}, entryKey: null }));
        const oracle = threeWayMerge({ current: before, history: steps, mine, policy });
        oracleChecked++;
        conflictsSeen += oracle.conflicts.length;
        const conflictFields = (answered.conflicts ?? []).map((c) => c.field).sort();
        if (JSON.stringify(oracle.conflicts.map((c) => c.field).sort()) !== JSON.stringify(conflictFields)) throw new Error(`oracle conflicts ${JSON.stringify(oracle.conflicts)} ≠ ${JSON.stringify(answered.conflicts)} (entry ${entry.id})`);
        if (oracle.apply.size > 0) {
          const wrote = Object.fromEntries(Object.entries(row?.fields ?? {}).map(([p, change]) => [p, change[1] ?? null]));
          if (JSON.stringify(Object.fromEntries([...oracle.apply].sort())) !== JSON.stringify(Object.fromEntries(Object.entries(wrote).sort()))) throw new Error(`oracle writes ${JSON.stringify([...oracle.apply])} ≠ revision ${at}: ${JSON.stringify(wrote)}`);
        }
      }
      // Nothing dropped silently.
      const seen = (f: Field, v: unknown) =>
        JSON.stringify(server[f]) === JSON.stringify(v) ||
        JSON.stringify(initial[f]) === JSON.stringify(v) ||
        h.revisions.some((r: any) => (r.fields?.[PATH[f]] ?? []).some((x: unknown) => JSON.stringify(x) === JSON.stringify(v))) ||
        conflicts.some((c) => c.field === PATH[f] && (JSON.stringify(c.mine) === JSON.stringify(v) || JSON.stringify(c.theirs) === JSON.stringify(v)));
      for (const [f, v] of written) if (!seen(f, v)) throw new Error(`${f}=${JSON.stringify(v)} was written and is nowhere`);
      if (![...laptopTouched].some((f) => serverTouched.has(f)) && conflicts.length) throw new Error(`disjoint fields conflicted: ${JSON.stringify(conflicts)}`);
      if (conflicts.some((c) => c.status === 'open')) throw new Error('a conflict is still open on the server');
    } finally {
      await knex.destroy();
    }
  });

  const result = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
  t.notOk(result.failed, result.failed ? `seed ${SEED}, path ${result.counterexamplePath}: ${fc.stringify(result.counterexample)}\n${String((result as { errorInstance?: unknown }).errorInstance)}` : `${RUNS} runs, seed ${SEED}`);
  t.equal(result.numRuns, RUNS, 'every run ran');
  t.ok(oracleChecked > RUNS / 2 && conflictsSeen > 0, `the oracle checked ${oracleChecked} updates, ${conflictsSeen} conflicts among them`);
  await s.server.runtime.admin.setConflictPolicy('default', 'hold');
});
