import type { Knex } from 'knex';

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
    .orderBy('path');
  const byPath = new Map<string, ReferencedFile>();
  for (const row of rows) byPath.set(row.path, { path: row.path, sha256: row.sha256, size: Number(row.size) });
  return [...byPath.values()];
}
