/**
 * Reads a mirror file directly (read-only SQLite), independent of the store under test: its
 * logical content for "unchanged"/"consistent" assertions, and SQLite's own integrity check.
 */
import Database from 'better-sqlite3';

export interface MirrorDump {
  checkpoints: Array<Record<string, unknown>>;
  meta: Array<Record<string, unknown>>;
  patrol_types: Array<{ id: string; value: string; display: string; is_active: number; hash: string }>;
  event_types: Array<{ id: string; value: string; display: string; is_active: number; hash: string }>;
  choices: Array<{ id: string; field: string; value: string; is_active: number; hash: string }>;
  documents: Array<{ name: string; hash: string }>;
}

export function dumpMirror(file: string): MirrorDump {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const all = (sql: string) => db.prepare(sql).all() as any[];
    return {
      checkpoints: all('select * from checkpoints order by resource'),
      meta: all('select * from mirror_meta order by key'),
      patrol_types: all('select id, value, display, is_active, hash from patrol_types order by id'),
      event_types: all('select id, value, display, is_active, hash from event_types order by id'),
      choices: all('select id, field, value, is_active, hash from choices order by id'),
      documents: all('select name, hash from documents order by name'),
    };
  } finally {
    db.close();
  }
}

export function integrityCheck(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? '';
  } finally {
    db.close();
  }
}
