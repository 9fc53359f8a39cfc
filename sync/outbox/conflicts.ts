/**
 * Conflicts an outbox entry met on the server (mirror table `outbox_conflicts`, issue 26 §3):
 * one row per field that the entry and the server both changed since the entry's base, with the
 * base, the laptop's and the server's value. Nothing is lost: the server keeps the same row
 * (`record_conflicts`), and this copy is what `fieldops outbox` shows offline.
 *
 * Contract:
 * - rows are written by the push (`saveConflicts`, in the transaction that stores the entry's
 *   outcome); an entry with an open row is `conflict`, one whose rows are all settled (by the
 *   tenant's policy, or here) is `sent`;
 * - `queueResolution` (`fieldops outbox resolve <id> [--field F] --mine|--theirs`) queues one
 *   `conflict.resolve` entry per open field, offline; the row stays open until the server
 *   answers that entry (`settleConflict`, called by the push), so a resolution never counts
 *   before the server has it;
 * - `settleConflict` settles a row and, when no row of its entry is left open, marks the entry
 *   `sent`, in one transaction.
 */
import type { Knex } from 'knex';
import type { ConflictPolicy, PushConflict } from '../../protocol/push.js';
import { failure } from '../errors.js';
import { newId } from './ids.js';
import type { OutboxEntry } from './model.js';
import type { OutboxStore } from './store.js';

type Db = Knex | Knex.Transaction;

export type ConflictChoice = 'mine' | 'theirs';
export type SettledBy = 'policy' | 'mine' | 'theirs';

export interface OutboxConflict {
  /** The server's conflict id (what `conflict.resolve` names). */
  id: string;
  /** The outbox entry that met it. */
  entryId: string;
  field: string;
  base: unknown;
  mine: unknown;
  theirs: unknown;
  status: 'open' | 'settled';
  policy: ConflictPolicy | null;
  settledBy: SettledBy | null;
}

/** The body of a queued `conflict.resolve` entry (its target is the conflict id; the wire body is `{choice}`). */
export interface ResolutionBody {
  choice: ConflictChoice;
  entry: string;
  field: string;
}

interface Row {
  id: string;
  entry_id: string;
  field: string;
  base: string | null;
  mine: string | null;
  theirs: string | null;
  status: string;
  policy: string | null;
  settled_by: string | null;
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as unknown));

const toConflict = (row: Row): OutboxConflict => ({
  id: row.id, entryId: row.entry_id, field: row.field, base: parse(row.base), mine: parse(row.mine), theirs: parse(row.theirs),
  status: row.status === 'settled' ? 'settled' : 'open', policy: (row.policy as ConflictPolicy | null) ?? null, settledBy: (row.settled_by as SettledBy | null) ?? null,
});

/** Stores (or refreshes, by the server's conflict id) the conflicts an entry met; in the caller's transaction. */
export async function saveConflicts(db: Db, entryId: string, conflicts: readonly PushConflict[]): Promise<void> {
  for (const c of conflicts) {
    const row = {
      id: c.id, entry_id: entryId, field: c.field, base: json(c.base), mine: json(c.mine), theirs: json(c.theirs),
      status: c.status === 'settled' ? 'settled' : 'open', policy: c.policy ?? null, settled_by: c.status === 'settled' ? (c.settled_by ?? 'policy') : null,
    };
    await db('outbox_conflicts').insert(row).onConflict('id').merge();
  }
}

/** Conflict rows, by entry and status, in entry then field order. */
export async function listConflicts(db: Db, options: { entryId?: string; entryIds?: readonly string[]; status?: Array<'open' | 'settled'> } = {}): Promise<OutboxConflict[]> {
  const query = db<Row>('outbox_conflicts').orderBy([{ column: 'entry_id' }, { column: 'field' }]);
  if (options.entryId) query.where({ entry_id: options.entryId });
  if (options.entryIds) query.whereIn('entry_id', [...options.entryIds]);
  if (options.status) query.whereIn('status', options.status);
  return (await query).map(toConflict);
}

/**
 * Settles one conflict row (the server accepted a resolution, or said it was settled already:
 * `settledBy` is then the winner it named). When no row of the entry is left open, the entry
 * becomes `sent`. In `db`'s transaction if it is one, else its own.
 */
export async function settleConflict(db: Db, conflictId: string, settledBy: SettledBy, now: () => number = Date.now, settledRevision: number | null = null): Promise<OutboxConflict | null> {
  const work = async (trx: Db) => {
    const row = await trx<Row>('outbox_conflicts').where({ id: conflictId }).first();
    if (!row) return null;
    await trx('outbox_conflicts').where({ id: conflictId }).update({ status: 'settled', settled_by: settledBy });
    await noteSettled(trx, row.entry_id, conflictId, settledBy, settledRevision);
    const open = await trx('outbox_conflicts').where({ entry_id: row.entry_id, status: 'open' }).first('id');
    if (!open) {
      await trx('outbox').where({ id: row.entry_id, status: 'conflict' }).update({ status: 'sent', reason: null, sent_at: new Date(now()).toISOString() });
    }
    return toConflict({ ...row, status: 'settled', settled_by: settledBy });
  };
  return 'isTransaction' in db && db.isTransaction ? work(db) : (db as Knex).transaction(work);
}

/**
 * The entry's stored outcome learns the settlement, and its revision the one the settlement wrote
 * (a `mine` writes a new revision): an edit recorded after it is based on what the laptop now
 * knows, so the laptop's own resolution is never a conflict with its next edit (sync/push/batches.ts).
 */
async function noteSettled(trx: Db, entryId: string, conflictId: string, settledBy: SettledBy, settledRevision: number | null): Promise<void> {
  const entry = await trx('outbox').where({ id: entryId }).first('outcome', 'revision');
  if (!entry) return;
  const change: Record<string, unknown> = {};
  if (entry.outcome) {
    const outcome = JSON.parse(entry.outcome) as { conflicts?: PushConflict[] };
    outcome.conflicts = (outcome.conflicts ?? []).map((c) => (c.id === conflictId ? { ...c, status: 'settled' as const, settled_by: settledBy } : c));
    change.outcome = JSON.stringify(outcome);
  }
  if (settledRevision !== null && (entry.revision === null || Number(entry.revision) < settledRevision)) change.revision = settledRevision;
  if (Object.keys(change).length > 0) await trx('outbox').where({ id: entryId }).update(change);
}

/**
 * Queues the resolution of an entry's open conflicts (all of them, or the one on `field`): one
 * `conflict.resolve` entry per field, in one outbox transaction; the next push sends them. A
 * field whose resolution is already queued is not queued again. Returns the new entries' ids.
 */
export async function queueResolution(outbox: OutboxStore, entry: OutboxEntry, choice: ConflictChoice, field?: string): Promise<string[]> {
  const open = await listConflicts(outbox.knex, { entryId: entry.id, status: ['open'] });
  if (open.length === 0) throw failure('usage', `${entry.id} has no open conflict`, '`fieldops outbox` lists the conflicts');
  const chosen = field === undefined ? open : open.filter((c) => c.field === field);
  if (chosen.length === 0) throw failure('usage', `${entry.id} has no open conflict on ${field}`, `its open fields: ${open.map((c) => c.field).join(', ')}`);
  const queued = new Set(
    (await outbox.knex('outbox').where({ kind: 'conflict.resolve', status: 'pending' }).whereIn('target', chosen.map((c) => c.id)).select('target')).map((r: { target: string }) => r.target),
  );
  // Keeping mine on a field that earlier offline edits of the same record also lost: those are
  // settled as theirs first (queued before, so sent before), else the earlier one's `mine` would
  // be written first and this one would meet it as a stale conflict, forever.
  const earlier = choice === 'mine' && entry.target ? await earlierOpen(outbox, entry, chosen.map((c) => c.field)) : [];
  const earlierQueued = new Set(
    earlier.length === 0 ? [] : (await outbox.knex('outbox').where({ kind: 'conflict.resolve', status: 'pending' }).whereIn('target', earlier.map((c) => c.id)).select('target')).map((r: { target: string }) => r.target),
  );
  const entries = [
    ...earlier.filter((c) => !earlierQueued.has(c.id)).map((c) => ({
      id: newId(), kind: 'conflict.resolve' as const, target: c.id, body: { choice: 'theirs' as const, entry: c.entryId, field: c.field } satisfies ResolutionBody,
    })),
    ...chosen.filter((c) => !queued.has(c.id)).map((c) => ({
      id: newId(), kind: 'conflict.resolve' as const, target: c.id, body: { choice, entry: entry.id, field: c.field } satisfies ResolutionBody,
    })),
  ];
  await outbox.enqueue(entries);
  return entries.map((e) => e.id);
}

/** Open conflicts on `fields` of entries recorded before `entry` for the same record. */
async function earlierOpen(outbox: OutboxStore, entry: OutboxEntry, fields: string[]): Promise<OutboxConflict[]> {
  const rows: Array<{ id: string }> = await outbox.knex('outbox').where({ target: entry.target }).andWhere('seq', '<', entry.seq).whereNot({ id: entry.id }).select('id');
  if (rows.length === 0) return [];
  const open = await listConflicts(outbox.knex, { entryIds: rows.map((row) => row.id), status: ['open'] });
  return open.filter((conflict) => fields.includes(conflict.field));
}

/** The entries (by id) with at least one conflict row: their `conflict` came from the server's merge. */
export async function entriesWithConflicts(db: Db, entryIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < entryIds.length; i += 300) {
    const rows: Array<{ entry_id: string }> = await db('outbox_conflicts').whereIn('entry_id', entryIds.slice(i, i + 300)).distinct('entry_id');
    for (const row of rows) found.add(row.entry_id);
  }
  return found;
}
