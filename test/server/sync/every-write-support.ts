/**
 * What every-write.test.ts reads: the change-log rows the writes since the last call appended,
 * as sorted `[kind, record_id, op]` triples.
 */
import type { Runtime } from '../../../server/main.js';

export type Row = [kind: string, id: string, op: string];

const key = (row: Row) => row.join(' ');
const sorted = (rows: Row[]) => [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/**
 * Waits for the start-up backfill (server/domain/sync/backfill.ts) to finish first, so that
 * its rows never mix with a write's.
 */
export async function changeWatcher(runtime: Runtime) {
  const { knex } = runtime.database;
  for (let waited = 0; ; waited += 50) {
    const states = await knex('sync_tenant_state').select('backfill');
    if (states.length > 0 && states.every((row) => row.backfill === 'done')) break;
    if (waited > 20_000) throw new Error(`the backfill did not finish: ${JSON.stringify(states)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let seen = 0;
  return {
    /** The rows appended since the previous call, in (kind, id, op) order. */
    async rows(): Promise<Row[]> {
      const found = await knex('sync_changes').where('position', '>', seen).orderBy('position');
      for (const row of found) seen = Math.max(seen, Number(row.position));
      return sorted(found.map((row) => [row.kind as string, row.record_id as string, row.op as string]));
    },
    normalise: (expected: Row[]) => sorted(expected),
  };
}
