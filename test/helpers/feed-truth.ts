/**
 * What a laptop's mirror must hold, read from both sides: the server's records (their ids from
 * the record table, their versions from `sync_members`, the feed's version of a record) and the
 * mirror's pulled rows. A record the server has but the log never versioned shows as version
 * null, so a missed write cannot hide behind a join.
 */
import Database from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import type { TestDatabase } from './database.js';

export type Held = Record<string, number | null>;

const TABLES = { event: 'events', patrol: 'patrols' } as const;
const PULLED = { event: 'pulled_events', patrol: 'pulled_patrols' } as const;

/** A plain Knex on a test database (a second connection beside the serve processes). */
export function truthKnex(db: TestDatabase): Knex {
  if (db.config.dialect === 'sqlite') return knexFactory({ client: 'better-sqlite3', connection: { filename: db.config.filename }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
  return knexFactory({ client: 'pg', connection: db.config.url, pool: { min: 0, max: 2 } });
}

/** Every record of `kind` on the server (one tenant) with its feed version. */
export async function serverHeld(knex: Knex, kind: keyof typeof TABLES): Promise<Held> {
  const ids = (await knex(TABLES[kind]).select('id')) as Array<{ id: string }>;
  const versions = (await knex('sync_members').where({ kind }).groupBy('record_id').select('record_id').max({ version: 'version' })) as Array<{ record_id: string; version: number | string }>;
  const byId = new Map(versions.map((v) => [v.record_id, Number(v.version)]));
  const out: Held = {};
  for (const { id } of ids) out[String(id)] = byId.get(String(id)) ?? null;
  return sorted(out);
}

/** The mirror's pulled rows of `kind` with the versions they were pulled at. */
export function mirrorHeld(file: string, kind: keyof typeof PULLED): Held {
  const mirror = new Database(file, { readonly: true });
  try {
    const rows = mirror.prepare(`select id, version from ${PULLED[kind]}`).all() as Array<{ id: string; version: number | null }>;
    const out: Held = {};
    for (const row of rows) out[row.id] = row.version === null ? null : Number(row.version);
    return sorted(out);
  } finally {
    mirror.close();
  }
}

/** The pulled record body (as JSON) of one held row, or null. */
export function mirrorRecord(file: string, kind: keyof typeof PULLED, id: string): Record<string, any> | null {
  const mirror = new Database(file, { readonly: true });
  try {
    const row = mirror.prepare(`select record from ${PULLED[kind]} where id = ?`).get(id) as { record: string } | undefined;
    return row ? JSON.parse(row.record) : null;
  } finally {
    mirror.close();
  }
}

function sorted(held: Held): Held {
  return Object.fromEntries(Object.entries(held).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
