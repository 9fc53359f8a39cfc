/**
 * What the batched push's answer does to the outbox (issue 26 §4). One answer is stored in one
 * mirror transaction (OutboxStore.settle), and only after it arrived, so a push killed at any
 * point re-sends the same keys and the server answers them from its store (`replayed`).
 *
 * Per outcome:
 * - `applied`, `merged`, `replayed` → sent, with the record's revision and the outcome kept;
 * - `conflict` (or any of those carrying conflicts) → the conflict rows are stored
 *   (conflicts.ts); open ones make the entry `conflict`, rows all settled by the tenant's policy
 *   leave it `sent` ("settled: server wins");
 * - `rejected` → rejected with the server's reason (a `conflict.resolve` the server says was
 *   settled already takes the winner it names, and is done);
 * - `failed_dependency` → rejected when what it depends on was refused, pending when that is
 *   still pending (or when its base entry was refused, to be sent again on that entry's own base);
 * - `deferred` (the server's time budget ran out), or no outcome at all → stays pending.
 */
import type { PushOutcome as WireOutcome } from '../../protocol/push.js';
import type { SettledBy } from '../outbox/conflicts.js';
import type { OutboxEntry, OutboxStatus } from '../outbox/model.js';
import type { SettledEntry } from '../outbox/store.js';

export interface Decision {
  entry: OutboxEntry;
  /** null: the entry stays pending. */
  settled: SettledEntry | null;
  /** Send it again in this push (deferred, or its base entry was refused). */
  again: boolean;
  /** A create the server already holds under its id (409): read back and compared. */
  readBack?: boolean;
  outcome: WireOutcome | null;
}

const describe = (o: WireOutcome) => {
  const e = o.error;
  const detail = e ? `${e.message}${e.field ? ` (${e.field})` : ''}${e.code ? ` [${e.code}]` : ''}` : o.status;
  return `HTTP ${o.http_status}: ${detail}`;
};

/** The revision a settled conflict's record is at after the settlement (the answer's conflict row). */
function settledRevision(o: WireOutcome): number | null {
  const row = o.record as { settled_revision?: unknown; revision?: unknown } | undefined;
  const value = row?.settled_revision ?? null;
  return typeof value === 'number' ? value : null;
}

/**
 * Decides each entry of a batch from its outcome. `statusOf` gives what the batch's other
 * entries became (or the outbox's status for entries outside it), for the dependencies.
 */
export function decide(batch: readonly OutboxEntry[], outcomes: readonly WireOutcome[], statusOf: (id: string) => OutboxStatus | 'unknown' | undefined): Decision[] {
  const byKey = new Map(outcomes.map((o) => [o.key, o]));
  const decided = new Map<string, OutboxStatus | null>();
  const status = (id: string) => (decided.has(id) ? (decided.get(id) ?? 'pending') : statusOf(id));
  const decisions: Decision[] = [];
  for (const entry of batch) {
    const o = byKey.get(entry.id) ?? null;
    const d = decideOne(entry, o, status);
    decided.set(entry.id, d.settled?.status ?? null);
    decisions.push(d);
  }
  return decisions;
}

function decideOne(entry: OutboxEntry, o: WireOutcome | null, status: (id: string) => OutboxStatus | 'unknown' | undefined): Decision {
  const stay = (again: boolean): Decision => ({ entry, settled: null, again, outcome: o });
  if (!o || o.status === 'deferred') return stay(true);
  const revision = typeof o.revision === 'number' ? o.revision : null;
  switch (o.status) {
    case 'applied':
    case 'merged':
    case 'replayed':
    case 'conflict': {
      const conflicts = o.conflicts ?? [];
      const open = conflicts.filter((c) => c.status !== 'settled');
      const resolves = entry.kind === 'conflict.resolve' && entry.target ? { conflictId: entry.target, by: (entry.body as { choice: SettledBy }).choice, revision: settledRevision(o) } : undefined;
      if (open.length > 0) {
        const reason = `conflict on ${open.map((c) => c.field).join(', ')}: the server kept its values (fieldops outbox resolve ${entry.id} --mine|--theirs)`;
        return { entry, settled: { id: entry.id, status: 'conflict', reason, outcome: o, revision, conflicts, resolves }, again: false, outcome: o };
      }
      const policy = conflicts.find((c) => c.policy && c.policy !== 'hold')?.policy;
      const reason = conflicts.length ? `settled: ${policy === 'last_writer_wins' ? 'last writer wins' : 'server wins'} (${conflicts.map((c) => c.field).join(', ')})` : null;
      return { entry, settled: { id: entry.id, status: 'sent', reason, outcome: o, revision, conflicts, resolves }, again: false, outcome: o };
    }
    case 'rejected': {
      if (entry.kind === 'conflict.resolve' && o.error?.code === 'conflict_settled' && entry.target) {
        const by = o.conflicts?.[0]?.settled_by ?? 'policy';
        return { entry, settled: { id: entry.id, status: 'sent', reason: `settled at headquarters first (${by})`, outcome: o, resolves: { conflictId: entry.target, by, revision: settledRevision(o) } }, again: false, outcome: o };
      }
      if (o.http_status === 409 && entry.kind.endsWith('.create')) return { entry, settled: null, again: false, outcome: o, readBack: true };
      return { entry, settled: { id: entry.id, status: 'rejected', reason: describe(o), outcome: o }, again: false, outcome: o };
    }
    case 'failed_dependency': {
      const dependency = entry.dependsOn;
      const held = dependency ? status(dependency) : undefined;
      if (held === 'rejected' || held === 'dropped') {
        return { entry, settled: { id: entry.id, status: 'rejected', reason: `not sent: it depends on ${dependency}, which is ${held}`, outcome: o }, again: false, outcome: o };
      }
      if (held === 'pending') return stay(true);
      const base = entry.baseEntry ? status(entry.baseEntry) : undefined;
      // Its base entry never reached the server: sent again on that entry's own base.
      if (base === 'rejected' || base === 'dropped') return stay(true);
      if (base === 'pending') return stay(true);
      return { entry, settled: { id: entry.id, status: 'rejected', reason: describe(o), outcome: o }, again: false, outcome: o };
    }
    default:
      return stay(false);
  }
}
