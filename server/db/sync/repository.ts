import type { RecordKind } from '../../../protocol/sync.js';
import type { BackfillClaim, ChangeSet, DependentKind, LogEntry, RecordFacts, SyncRepository, UnloggedStep } from '../../domain/sync/ports.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { appendChanges } from './append.js';
import { dependents } from './dependents.js';
import { readFacts } from './facts.js';
import { type OldMember, readMembers } from './members.js';
import { addPendingBackfills, advanceBackfill, claimBackfill, finishBackfill, unloggedStep } from './tenant-state.js';

/** The change log's write side on Knex (both dialects); bound to the writing transaction by the store. */
export class KnexSyncRepository implements SyncRepository {
  /**
   * In a transaction: the memberships read since its last append, by tenant and kind, then id
   * (none: []). `memberKeys` answers from them (the patrols' come with their facts). On SQLite
   * `append` reuses them as the old rows too: sound, as the transaction holds the database's one
   * write lock from its BEGIN IMMEDIATE. PostgreSQL's append reads them again in its insert,
   * once it holds the records' locks (another transaction may have appended since).
   */
  private readonly read: Map<string, Map<string, OldMember[]>> | null;

  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly changes: ChangeSet,
  ) {
    this.read = db.isTransaction === true ? new Map() : null;
  }

  async markChanged(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<void> {
    for (const id of ids) this.changes.mark(kind, tenantId, id);
  }

  /**
   * In a transaction, patrols' facts come with their memberships in one statement (memberKeys
   * then needs none), and on SQLite events' too (append then needs none).
   */
  async facts(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, RecordFacts>> {
    const withMembers = this.read !== null && (kind === 'patrol' || this.dialect === 'sqlite');
    const { facts, members } = await readFacts(this.db, this.dialect, tenantId, kind, ids, withMembers);
    if (members) {
      const known = this.known(tenantId, kind);
      for (const [id, list] of members) known.set(id, list);
    }
    return facts;
  }

  async append(tenantId: string, entries: readonly LogEntry[], at: number): Promise<void> {
    try {
      // (PostgreSQL's append reads the old memberships itself, after the locks.)
      await appendChanges(this.db, this.dialect, tenantId, entries, at, (kind, ids) => this.members(tenantId, kind, ids));
    } finally {
      this.read?.clear();
    }
  }

  async memberKeys(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const [id, members] of await this.members(tenantId, kind, ids)) out.set(id, members.map((m) => m.key).sort());
    return out;
  }

  private known(tenantId: string, kind: RecordKind): Map<string, OldMember[]> {
    const scope = `${tenantId}\n${kind}`;
    const known = this.read?.get(scope) ?? new Map<string, OldMember[]>();
    this.read?.set(scope, known);
    return known;
  }

  /** Memberships of `ids` by id (a record in no scope: missing), each read once between appends. */
  private async members(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, OldMember[]>> {
    const known = this.known(tenantId, kind);
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const found = await readMembers(this.db, this.dialect, tenantId, kind, missing);
      for (const id of missing) known.set(id, found.get(id) ?? []);
    }
    const out = new Map<string, OldMember[]>();
    for (const id of ids) {
      const members = known.get(id)!;
      if (members.length > 0) out.set(id, members);
    }
    return out;
  }

  dependents(tenantId: string, kind: DependentKind, ids: readonly string[], categoryKey: (category: string) => string | null): Promise<string[]> {
    return dependents(this.db, this.dialect === 'postgres', tenantId, kind, ids, categoryKey);
  }

  unlogged(tenantId: string, kind: RecordKind, after: string | null, limit: number): Promise<UnloggedStep> {
    return unloggedStep(this.db, this.dialect === 'postgres', tenantId, kind, after, limit);
  }

  addPendingBackfills(): Promise<number> {
    return addPendingBackfills(this.db);
  }

  claimBackfill(claimId: string, now: number, staleBefore: number): Promise<BackfillClaim | null> {
    return claimBackfill(this.db, claimId, now, staleBefore);
  }

  advanceBackfill(claim: BackfillClaim, now: number): Promise<boolean> {
    return advanceBackfill(this.db, claim, now);
  }

  finishBackfill(claim: BackfillClaim): Promise<boolean> {
    return finishBackfill(this.db, claim);
  }
}
