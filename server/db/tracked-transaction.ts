/**
 * A write transaction of the unit of work (server/db/store.ts) for the write paths that run
 * their own statements on the bare transaction (the patrol create's fast paths): `work` marks
 * the records it writes in `changes`, and the store's pre-commit hook appends their changes in
 * the same transaction before it commits, exactly as for `store.transaction`.
 */
import type { Knex } from 'knex';
import type { ChangeSet } from '../domain/sync/ports.js';

export type TrackedTransaction = <R>(work: (trx: Knex.Transaction, changes: ChangeSet) => Promise<R>) => Promise<R>;
