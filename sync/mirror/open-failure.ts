/**
 * Why a mirror file could not be opened, in words, with a hint that never risks the outbox: the
 * mirror holds the unsent field records, so no hint says to delete it. Each known cause gets its
 * own message (read-only, locked, damaged, written by a newer fieldops, disk full, folder not
 * writable); the SQLite or Knex text stays in the cause (shown with --debug), out of the message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ClientFailure, failure } from '../errors.js';
import { fsErrorCode, fsFailure } from '../fs-failure.js';

/** The mirror has migrations this fieldops does not know: a newer version wrote it. */
export class NewerMirrorError extends Error {
  constructor(readonly unknown: string[]) {
    super(`unknown mirror migrations: ${unknown.join(', ')}`);
    this.name = 'NewerMirrorError';
  }
}

/** Rescue first: the command that saves the unsent records of a mirror that cannot be opened. */
export const EXPORT_FIRST_HINT = 'if it holds unsent records, `fieldops outbox export` saves them to a JSON file first (it reads the file as it is)';

export const mirrorFolderHint = (file: string) =>
  `make ${path.dirname(file)} a folder you can write (check its parent folders too), or set FIELDOPS_MIRROR to a file in one (or XDG_DATA_HOME to move every profile's mirror)`;

/**
 * `rescue`: the failure of `fieldops outbox export` itself, whose hints cannot send the user to
 * the export: they say how to keep the file and get the records out of it by hand.
 */
export function mirrorOpenFailure(file: string, error: unknown, options: { rescue?: boolean } = {}): ClientFailure | unknown {
  if (error instanceof ClientFailure) return error;
  const name = `the mirror ${file}`;
  const EXPORT_FIRST = options.rescue ? `keep a copy of the file (it holds the unsent records); \`sqlite3 ${file} .recover > recovered.sql\` may get them back` : EXPORT_FIRST_HINT;
  if (error instanceof NewerMirrorError) {
    return failure('mirror', `${name} was written by a newer fieldops (it has ${error.unknown.join(', ')}, unknown to this version)`, `use that newer fieldops (update this one); nothing was changed; ${EXPORT_FIRST}`, error);
  }
  if (fsErrorCode(error)) return fsFailure(error, `open ${name}`, mirrorFolderHint(file));
  const code = sqliteCode(error);
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return failure('mirror', `${name} is read-only (${code})`, `make it writable again: \`chmod u+w ${file}\` (and its folder), \`chattr -i ${file}\` if it is immutable, or copy it to a writable disk and set FIELDOPS_MIRROR to the copy; nothing was changed; ${EXPORT_FIRST}`, error);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || isKnexLock(error)) {
    return failure('mirror', `${name} is locked by another process (${code || 'migration lock'})`, 'another fieldops (or a program holding the file open) is using it: wait for it to finish and try again; nothing was changed', error);
  }
  if ((code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') && options.rescue) {
    return failure('mirror', `${name} is damaged: it is not a readable SQLite database (${code})`, EXPORT_FIRST, error);
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return failure(
      'mirror',
      `${name} is damaged: it is not a readable SQLite database (${code})`,
      `${EXPORT_FIRST}; then move the file aside and keep it (\`mv ${file} ${file}.damaged\`) and run \`fieldops sync\` to build a new mirror, and \`fieldops outbox import <file>\` to queue the saved records again`,
      error,
    );
  }
  if (code === 'SQLITE_FULL') return failure('mirror', `the disk holding ${name} is full (${code})`, 'free some space, then try again; nothing was changed', error);
  if (code.startsWith('SQLITE_CANTOPEN')) return cannotOpen(file, code, error);
  if (code.startsWith('SQLITE_IOERR')) {
    return failure('mirror', `cannot read or write ${name}: the disk reported an input/output error (${code})`, `check the disk; ${EXPORT_FIRST}`, error);
  }
  return failure('mirror', `cannot open ${name}${code ? ` (${code})` : ''}`, `nothing was changed; \`fieldops --debug ...\` shows the cause; ${EXPORT_FIRST}`, error);
}

function cannotOpen(file: string, code: string, error: unknown): ClientFailure {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return failure('mirror', `the mirror ${file} is a folder, not a file (${code})`, 'set FIELDOPS_MIRROR to a file path, or move that folder away', error);
  let folder = 'cannot be opened';
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
  } catch {
    folder = stat ? 'its folder is not writable (SQLite keeps its journal beside the file)' : 'its folder is not writable';
  }
  return failure('mirror', `cannot ${stat ? 'open' : 'create'} the mirror ${file}: ${folder} (${code})`, mirrorFolderHint(file), error);
}

function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : '';
}

/** Knex's own migration lock: a migration of this file runs in another process. NOTE: Knex keeps no code on it, only this name. */
const isKnexLock = (error: unknown) => (error as Error | null)?.name === 'MigrationLocked';
