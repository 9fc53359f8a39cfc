/**
 * The outbox in the mirror's SQLite file (table `outbox`, migrations/mirror/20261123_0601). Every
 * record is queued in its own transaction (a whole import in one), so a crash while recording
 * leaves each record queued whole or not at all. Queuing an id that is already there is a no-op:
 * importing the same file twice queues nothing new.
 */
import type { Knex } from 'knex';
import type { PushConflict, PushOutcome } from '../../protocol/push.js';
import { saveConflicts, settleConflict, type SettledBy } from './conflicts.js';
import type { NewEntry, OutboxCounts, OutboxEntry, OutboxStatus } from './model.js';
import { readMirrorIdentity, type UserIdentity } from '../mirror/identity.js';
import { recordedBy } from './owner.js';
import { recorderColumns } from './recorder.js';

const INSERT_CHUNK = 200;

interface Row {
  seq: number;
  id: string;
  kind: string;
  target: string | null;
  depends_on: string | null;
  body: string;
  base_etag: string | null;
  batch_key: string | null;
  status: string;
  reason: string | null;
  theirs: string | null;
  source: string | null;
  recorded_at: string;
  sent_at: string | null;
  etag: string | null;
  user_id: string | null;
  username: string | null;
  server: string | null;
  base_revision?: number | string | null;
  base_entry?: string | null;
  outcome?: string | null;
  revision?: number | string | null;
}

const numberOrNull = (v: number | string | null | undefined) => (v === undefined || v === null ? null : Number(v));

const toEntry = (row: Row): OutboxEntry => ({
  seq: row.seq,
  id: row.id,
  kind: row.kind as OutboxEntry['kind'],
  target: row.target,
  dependsOn: row.depends_on,
  body: JSON.parse(row.body),
  baseEtag: row.base_etag,
  batchKey: row.batch_key,
  status: row.status as OutboxStatus,
  reason: row.reason,
  theirs: row.theirs === null ? null : JSON.parse(row.theirs),
  source: row.source,
  recordedAt: row.recorded_at,
  sentAt: row.sent_at,
  etag: row.etag,
  userId: row.user_id ?? null,
  username: row.username ?? null,
  server: row.server ?? null,
  baseRevision: numberOrNull(row.base_revision),
  baseEntry: row.base_entry ?? null,
  outcome: row.outcome ? (JSON.parse(row.outcome) as PushOutcome) : null,
  revision: numberOrNull(row.revision),
});

/** The base columns of a new entry (issue 26 §2). */
const baseColumns = (e: NewEntry) => ({ base_revision: e.baseRevision ?? null, base_entry: e.baseEntry ?? null });

export class OutboxStore {
  constructor(
    readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues entries in one transaction, in order; ids already queued are skipped. Returns how many were new. */
  async enqueue(entries: NewEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const recordedAt = new Date(this.now()).toISOString();
    return this.knex.transaction(async (trx) => {
      const recorder = await recorderColumns(trx);
      let added = 0;
      for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
        const rows = entries.slice(i, i + INSERT_CHUNK).map((e) => ({
          id: e.id, kind: e.kind, target: e.target, depends_on: e.dependsOn ?? null, body: JSON.stringify(e.body), base_etag: e.baseEtag ?? null,
          batch_key: e.batchKey ?? null, status: 'pending', source: e.source ?? null, recorded_at: recordedAt, ...baseColumns(e), ...recorder,
        }));
        const inserted = await trx('outbox').insert(rows).onConflict('id').ignore().returning('id');
        added += inserted.length;
      }
      return added;
    });
  }

  /**
   * Queues entries exported from another outbox (`fieldops outbox import`), in one transaction,
   * keeping their status, reason, server version and recording time; ids already here are
   * skipped. Entries keep who recorded them; those exported without it are the importer's.
   * Returns how many were new.
   */
  async importEntries(entries: ImportedEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    return this.knex.transaction(async (trx) => {
      const recorder = await recorderColumns(trx);
      let added = 0;
      for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
        const rows = entries.slice(i, i + INSERT_CHUNK).map((e) => ({
          id: e.id, kind: e.kind, target: e.target, depends_on: e.dependsOn ?? null, body: JSON.stringify(e.body), base_etag: e.baseEtag ?? null,
          batch_key: e.batchKey ?? null, status: e.status, reason: e.reason, theirs: e.theirs === null || e.theirs === undefined ? null : JSON.stringify(e.theirs),
          source: e.source ?? null, recorded_at: e.recordedAt, ...baseColumns(e),
          ...(e.server ? { user_id: e.userId ?? null, username: e.username ?? null, server: e.server } : recorder),
        }));
        added += (await trx('outbox').insert(rows).onConflict('id').ignore().returning('id')).length;
      }
      return added;
    });
  }

  async get(id: string): Promise<OutboxEntry | null> {
    const row = await this.knex<Row>('outbox').where({ id }).first();
    return row ? toEntry(row) : null;
  }

  /** Entries whose id starts with `prefix` (ids are long; a unique prefix is enough on the command line). */
  async findByPrefix(prefix: string): Promise<OutboxEntry[]> {
    const rows = await this.knex<Row>('outbox').where('id', 'like', `${prefix.toLowerCase().replace(/[%_]/g, '')}%`).orderBy('seq').limit(10);
    return rows.map(toEntry);
  }

  /** Who a push sends as (the session's user); unset, `pending` goes by the mirror's identity. */
  private sender: UserIdentity | null = null;

  /**
   * Sets who the entries are sent as: the session's own user, as the server will see them, never
   * the user the mirror names (a token session whose user could not be learned must not send the
   * previous user's entries: with no user known, only entries of no known user go).
   */
  sendAs(me: UserIdentity): void {
    this.sender = me;
  }

  async list(options: { status?: OutboxStatus[]; limit?: number } = {}): Promise<OutboxEntry[]> {
    const query = this.knex<Row>('outbox').orderBy('seq');
    if (options.status) query.whereIn('status', options.status);
    if (options.limit) query.limit(options.limit);
    return (await query).map(toEntry);
  }

  /**
   * The next pending entries in recorded order, from `afterSeq` on, that the mirror's user may
   * send: entries recorded by another user (or for another server) are skipped, held for them
   * (owner.ts). An empty answer means none are left.
   */
  async pending(afterSeq: number, limit: number): Promise<OutboxEntry[]> {
    const me = this.sender ?? (await readMirrorIdentity(this.knex)).user;
    for (let after = afterSeq; ; ) {
      const page = (await this.knex<Row>('outbox').where({ status: 'pending' }).andWhere('seq', '>', after).orderBy('seq').limit(limit)).map(toEntry);
      const mine = me ? page.filter((entry) => recordedBy(entry, me)) : page;
      if (mine.length > 0 || page.length === 0) return mine;
      after = page[page.length - 1]!.seq;
    }
  }

  async counts(): Promise<OutboxCounts> {
    const counts: OutboxCounts = { pending: 0, sent: 0, rejected: 0, conflict: 0, dropped: 0 };
    for (const row of (await this.knex('outbox').select('status').count({ n: '*' }).groupBy('status')) as Array<{ status: OutboxStatus; n: number }>) {
      counts[row.status] = Number(row.n);
    }
    return counts;
  }

  /**
   * Records the outcome of entries in one transaction (after the server answered): status,
   * reason, the server's version (`theirs`), and for the batched push the stored answer
   * (`outcome`), the record's revision after the entry and its conflict rows (conflicts.ts).
   */
  async settle(outcomes: SettledEntry[]): Promise<void> {
    const sentAt = new Date(this.now()).toISOString();
    // Entries with the same outcome (a whole batch sent) are updated together, in chunks.
    const groups = new Map<string, { change: Record<string, unknown>; ids: string[] }>();
    for (const o of outcomes) {
      const change = {
        status: o.status, reason: o.reason ?? null, theirs: o.theirs === undefined || o.theirs === null ? null : JSON.stringify(o.theirs),
        sent_at: o.status === 'sent' || (o.status === 'conflict' && o.conflicts?.length) ? sentAt : null, ...(o.etag !== undefined ? { etag: o.etag } : {}),
        ...(o.outcome !== undefined ? { outcome: o.outcome === null ? null : JSON.stringify(o.outcome) } : {}),
        ...(o.revision !== undefined ? { revision: o.revision } : {}),
      };
      const key = JSON.stringify(change);
      const group = groups.get(key) ?? { change, ids: [] as string[] };
      group.ids.push(o.id);
      groups.set(key, group);
    }
    await this.knex.transaction(async (trx) => {
      for (const { change, ids } of groups.values()) {
        for (let i = 0; i < ids.length; i += INSERT_CHUNK) await trx('outbox').whereIn('id', ids.slice(i, i + INSERT_CHUNK)).update(change);
      }
      for (const o of outcomes) {
        if (o.conflicts?.length) await saveConflicts(trx, o.id, o.conflicts);
        if (o.resolves) await settleConflict(trx, o.resolves.conflictId, o.resolves.by, this.now, o.resolves.revision ?? null);
      }
    });
  }

  /**
   * The latest entry before `beforeSeq` (all, when absent) that changes `target` with one of
   * `kinds`, not dropped: what an update recorded now is based on (bases.ts).
   */
  async latestFor(target: string, kinds: readonly string[], beforeSeq?: number, userId?: string | null): Promise<OutboxEntry | null> {
    const query = this.knex<Row>('outbox').where({ target }).whereIn('kind', [...kinds]).whereNot({ status: 'dropped' }).orderBy('seq', 'desc').first();
    if (beforeSeq !== undefined) query.andWhere('seq', '<', beforeSeq);
    // Another user's entry is never a base: its key is that user's (the server would not know it).
    if (userId) query.andWhere((q) => q.whereNull('user_id').orWhere({ user_id: userId }));
    const row = await query;
    return row ? toEntry(row) : null;
  }

  /** Entries by id (missing ids are left out). */
  async getMany(ids: readonly string[]): Promise<Map<string, OutboxEntry>> {
    const found = new Map<string, OutboxEntry>();
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      for (const row of await this.knex<Row>('outbox').whereIn('id', ids.slice(i, i + INSERT_CHUNK))) found.set(row.id, toEntry(row));
    }
    return found;
  }

  /** Puts a rejected or conflicted entry back in the queue, optionally with a new body and base version. */
  async requeue(id: string, change: { body?: unknown; baseEtag?: string | null; baseRevision?: number | null; baseEntry?: string | null; kind?: OutboxEntry['kind'] } = {}): Promise<void> {
    await this.knex('outbox').where({ id }).update({
      status: 'pending', reason: null, theirs: null, sent_at: null, outcome: null,
      ...(change.body !== undefined ? { body: JSON.stringify(change.body) } : {}),
      ...(change.baseEtag !== undefined ? { base_etag: change.baseEtag } : {}),
      ...(change.baseRevision !== undefined ? { base_revision: change.baseRevision } : {}),
      ...(change.baseEntry !== undefined ? { base_entry: change.baseEntry } : {}),
      ...(change.kind !== undefined ? { kind: change.kind } : {}),
    });
  }

  /** Entries created offline after `id` that name it as their dependency. */
  async dependents(id: string): Promise<OutboxEntry[]> {
    return (await this.knex<Row>('outbox').where({ depends_on: id }).orderBy('seq')).map(toEntry);
  }
}

/** What a push (or a resolution) records of one entry. */
export interface SettledEntry {
  id: string;
  status: OutboxStatus;
  reason?: string | null;
  theirs?: unknown;
  etag?: string | null;
  /** The batched push's answer for the entry (undefined: left as it was). */
  outcome?: PushOutcome | null;
  revision?: number | null;
  /** Conflict rows to store with it (open or settled by the server's policy). */
  conflicts?: PushConflict[];
  /** A conflict row this entry's answer settles (a `conflict.resolve` entry's). */
  resolves?: { conflictId: string; by: SettledBy; revision?: number | null };
}

export interface ImportedEntry extends NewEntry {
  status: OutboxStatus;
  reason: string | null;
  theirs: unknown;
  recordedAt: string;
  /** Who recorded it (absent in exports from before that was kept). */
  userId?: string | null;
  username?: string | null;
  server?: string | null;
}

export type { OutboxEntry };
