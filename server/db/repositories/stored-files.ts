import type { Knex } from 'knex';
import type { Executor } from '../rows.js';

/** A file the database points at in the file store (an event file, a camera-trap image, a patrol file). */
export interface ReferencedFile {
  /** `sha256/ab/cd/<sha256>`, relative to the store's root (the same in every store). */
  path: string;
  sha256: string;
  size: number;
}

/**
 * Every stored file any tenant's rows refer to, once per path (`admin migrate-files` checks
 * that the source store holds them all). Camera-trap images are event files.
 */
export async function referencedFiles(knex: Knex): Promise<ReferencedFile[]> {
  const rows: Array<{ path: string; sha256: string; size: number | string }> = await knex
    .select('path', 'sha256', 'size')
    .from('event_files')
    .union((union) => union.select({ path: 'storage_path' }, 'sha256', 'size').from('patrol_files'))
    .union((union) => union.select({ path: 'storage_path' }, 'sha256', 'size').from('file_uploads').where({ state: 'stored' }))
    .orderBy('path');
  const byPath = new Map<string, ReferencedFile>();
  for (const row of rows) byPath.set(row.path, { path: row.path, sha256: row.sha256, size: Number(row.size) });
  return [...byPath.values()];
}

/**
 * The tables whose rows refer to stored bytes, by their sha256 column (indexed by 20261125_0301
 * and 20261128_0103), and which of their rows do: a resumable upload refers to its bytes while
 * `stored` (finished, awaiting its attach; once attached, the file row refers to them).
 */
const REFERENCING = [
  { table: 'event_files', where: {} },
  { table: 'patrol_files', where: {} },
  { table: 'file_uploads', where: { state: 'stored' } },
] as const;

/**
 * Queues `sha256s` for removal, in the caller's transaction: the one that deletes references to
 * them. Queued whether or not other references remain (the sweeper checks, after the commit):
 * two transactions deleting the last two references concurrently would each see the other's.
 * Queuing again bumps `queued`, so a sweeper that decided on an older state keeps the row.
 */
export async function queueRemovals(db: Executor, sha256s: readonly string[]): Promise<void> {
  const keys = [...new Set(sha256s)];
  if (keys.length === 0) return;
  await db('stored_file_removals')
    .insert(keys.map((sha256) => ({ sha256, queued: 1 })))
    .onConflict('sha256')
    .merge({ queued: db.raw('stored_file_removals.queued + 1'), not_before: null });
}

/** A removal claimed by one sweeper: `queued` as it was when claimed. */
export interface RemovalClaim {
  sha256: string;
  claimId: string;
  queued: number;
}

/**
 * The bookkeeping behind removing unreferenced bytes (server/storage/file-sweeper.ts): the
 * removal queue with its claims, upload leases, and the one-time scan of each store. Every
 * method is one statement (no transaction): the protocol relies on each write being committed
 * before the same party's next read.
 */
export class KnexStoredFileRepository {
  constructor(private readonly db: Knex) {}

  /** Whether any row of any tenant refers to these bytes. */
  async referenced(sha256: string): Promise<boolean> {
    for (const { table, where } of REFERENCING) {
      if (await this.db(table).where({ ...where, sha256 }).first(this.db.raw('1 as found'))) return true;
    }
    return false;
  }

  /** Of `sha256s`, those no row of any tenant refers to. */
  async unreferenced(sha256s: readonly string[]): Promise<string[]> {
    if (sha256s.length === 0) return [];
    const used = new Set<string>();
    for (const { table, where } of REFERENCING) {
      for (const row of await this.db(table).distinct('sha256').where(where).whereIn('sha256', [...sha256s])) used.add(row.sha256 as string);
    }
    return sha256s.filter((sha256) => !used.has(sha256));
  }

  /** Referenced, or held by an upload lease renewed at or after `leasesSince`. */
  async inUse(sha256: string, leasesSince: number): Promise<boolean> {
    if (await this.db('stored_file_uploads').where({ sha256 }).andWhere('renewed_at', '>=', leasesSince).first(this.db.raw('1 as found'))) return true;
    return this.referenced(sha256);
  }

  async queue(sha256s: readonly string[]): Promise<void> {
    await queueRemovals(this.db, sha256s);
  }

  /**
   * Queues bytes the scan found unreferenced, each not to be removed before its `notBefore`;
   * a key queued already keeps its row.
   */
  async queueOrphans(files: ReadonlyArray<{ sha256: string; notBefore: number }>): Promise<void> {
    if (files.length === 0) return;
    await this.db('stored_file_removals')
      .insert(files.map((file) => ({ sha256: file.sha256, queued: 1, not_before: file.notBefore })))
      .onConflict('sha256')
      .ignore();
  }

  /** Queued keys due at `now`, not claimed (or claimed before `staleBefore`), after `after` in key order. */
  async dueRemovals(after: string, limit: number, now: number, staleBefore: number): Promise<string[]> {
    const rows = await this.db('stored_file_removals')
      .select('sha256')
      .where('sha256', '>', after)
      .andWhere((q) => q.whereNull('not_before').orWhere('not_before', '<=', now))
      .andWhere((q) => q.whereNull('claimed_at').orWhere('claimed_at', '<', staleBefore))
      .orderBy('sha256')
      .limit(limit);
    return rows.map((row) => row.sha256 as string);
  }

  /** Takes the removal of `sha256` unless another sweeper holds a live claim on it: a conditional update. */
  async claimRemoval(sha256: string, claimId: string, now: number, staleBefore: number): Promise<RemovalClaim | null> {
    const rows = await this.db('stored_file_removals')
      .where({ sha256 })
      .andWhere((q) => q.whereNull('not_before').orWhere('not_before', '<=', now))
      .andWhere((q) => q.whereNull('claimed_at').orWhere('claimed_at', '<', staleBefore))
      .update({ claimed_at: now, claim_id: claimId })
      .returning('queued');
    const row = rows[0] as { queued: unknown } | undefined;
    return row ? { sha256, claimId, queued: Number(row.queued) } : null;
  }

  /**
   * Ends a claim: deletes the row when nobody queued the key again since it was claimed;
   * otherwise only releases the claim, so a sweep looks at the key again. False when the claim
   * was no longer this sweeper's (taken over: see takeOverRemoval).
   */
  async settleRemoval(claim: RemovalClaim): Promise<boolean> {
    const deleted = await this.db('stored_file_removals').where({ sha256: claim.sha256, claim_id: claim.claimId, queued: claim.queued }).delete();
    return Number(deleted) > 0 || (await this.releaseRemoval(claim));
  }

  /** Gives a claim up (the removal failed): the key stays queued. False when the claim was no longer this sweeper's. */
  async releaseRemoval(claim: RemovalClaim): Promise<boolean> {
    const released = await this.db('stored_file_removals').where({ sha256: claim.sha256, claim_id: claim.claimId }).update({ claimed_at: null, claim_id: null });
    return Number(released) > 0;
  }

  /** The id of the claim a sweeper holds on `sha256` (its removal may be under way), or null. */
  async removalClaim(sha256: string): Promise<string | null> {
    const row = await this.db('stored_file_removals').where({ sha256 }).whereNotNull('claimed_at').first('claim_id');
    return row ? (row.claim_id as string) : null;
  }

  /**
   * An upload's takeover of a claim it outwaited (server/storage/leased-store.ts): releases
   * that claim and no other (a conditional update; the key stays queued), so the sweeper that
   * held it can no longer settle it. False when it had ended or been taken over already.
   */
  async takeOverRemoval(sha256: string, claimId: string): Promise<boolean> {
    const released = await this.db('stored_file_removals').where({ sha256, claim_id: claimId }).update({ claimed_at: null, claim_id: null });
    return Number(released) > 0;
  }

  async takeLease(id: string, sha256: string, now: number): Promise<void> {
    await this.db('stored_file_uploads').insert({ id, sha256, renewed_at: now });
  }

  async renewLeases(ids: readonly string[], now: number): Promise<void> {
    if (ids.length > 0) await this.db('stored_file_uploads').whereIn('id', [...ids]).update({ renewed_at: now });
  }

  async dropLease(id: string): Promise<void> {
    await this.db('stored_file_uploads').where({ id }).delete();
  }

  /** Leases not renewed since `before` (their process died), at most `limit`. */
  async staleLeases(before: number, limit: number): Promise<Array<{ id: string; sha256: string }>> {
    return this.db('stored_file_uploads').select('id', 'sha256').where('renewed_at', '<', before).orderBy('renewed_at').limit(limit);
  }

  /** Deletes a lease if still stale; true when this call deleted it. */
  async dropStaleLease(id: string, before: number): Promise<boolean> {
    return Number(await this.db('stored_file_uploads').where({ id }).andWhere('renewed_at', '<', before).delete()) === 1;
  }

  /**
   * Takes the scan of a store: never scanned, or a scan whose claim went stale (its process
   * died). False when the store was scanned, or another process is scanning it.
   */
  async claimScan(storeId: string, description: string, claimId: string, now: number, staleBefore: number): Promise<boolean> {
    const inserted = await this.db('stored_file_scans')
      .insert({ store_id: storeId, description, claimed_at: now, claim_id: claimId, finished_at: null })
      .onConflict('store_id')
      .ignore()
      .returning('store_id');
    if (inserted.length > 0) return true;
    const taken = await this.db('stored_file_scans')
      .where({ store_id: storeId })
      .whereNull('finished_at')
      .andWhere((q) => q.whereNull('claimed_at').orWhere('claimed_at', '<', staleBefore))
      .update({ claimed_at: now, claim_id: claimId });
    return Number(taken) === 1;
  }

  /** Keeps a scan's claim fresh; false when it was lost (taken over as stale). */
  async renewScan(storeId: string, claimId: string, now: number): Promise<boolean> {
    return Number(await this.db('stored_file_scans').where({ store_id: storeId, claim_id: claimId }).whereNull('finished_at').update({ claimed_at: now })) === 1;
  }

  async finishScan(storeId: string, claimId: string, now: number): Promise<void> {
    await this.db('stored_file_scans').where({ store_id: storeId, claim_id: claimId }).update({ finished_at: now });
  }

  /** Whether a scan of the store finished (or is not needed any more). */
  async scanned(storeId: string): Promise<boolean> {
    return Boolean(await this.db('stored_file_scans').where({ store_id: storeId }).whereNotNull('finished_at').first(this.db.raw('1 as found')));
  }
}
