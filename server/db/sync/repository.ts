import type { RecordKind } from '../../../protocol/sync.js';
import type { BackfillClaim, ChangeSet, DependentKind, LogEntry, RecordFacts, SyncRepository } from '../../domain/sync/ports.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { appendChanges } from './append.js';
import { dependents, memberKeys } from './dependents.js';
import { readFacts } from './facts.js';
import { addPendingBackfills, advanceBackfill, claimBackfill, finishBackfill, unloggedIds } from './tenant-state.js';

/** The change log's write side on Knex (both dialects); bound to the writing transaction by the store. */
export class KnexSyncRepository implements SyncRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly changes: ChangeSet,
  ) {}

  async markChanged(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<void> {
    for (const id of ids) this.changes.mark(kind, tenantId, id);
  }

  facts(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, RecordFacts>> {
    return readFacts(this.db, this.dialect, tenantId, kind, ids);
  }

  append(tenantId: string, entries: readonly LogEntry[], at: number): Promise<void> {
    return appendChanges(this.db, this.dialect, tenantId, entries, at);
  }

  memberKeys(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, string[]>> {
    return memberKeys(this.db, tenantId, kind, ids);
  }

  dependents(tenantId: string, kind: DependentKind, ids: readonly string[], categoryKey: (category: string) => string | null): Promise<string[]> {
    return dependents(this.db, this.dialect === 'postgres', tenantId, kind, ids, categoryKey);
  }

  unlogged(tenantId: string, kind: RecordKind, after: string | null, limit: number): Promise<string[]> {
    return unloggedIds(this.db, this.dialect === 'postgres', tenantId, kind, after, limit);
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
