/**
 * A failed file-system call on one of the client's own files (credentials, mirror, lock files,
 * attachments) as a `ClientFailure`: what could not be done, to which path, why in words, and
 * what to do (the caller's hint says which setting moves the file). Errors that are not the file
 * system's pass through unchanged (they are bugs).
 */
import { ClientFailure, failure } from './errors.js';

const REASONS: Record<string, string> = {
  ENOTDIR: 'a part of that path is a regular file, not a folder',
  EEXIST: 'a part of that path is a regular file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted (the file or folder may be immutable: see `lsattr`)',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  EISDIR: 'it is a folder, not a file',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'the path has a loop of symbolic links',
  EIO: 'the disk reported an input/output error',
};

/** The errno code of a file-system error we can explain, or null. */
export function fsErrorCode(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && Object.hasOwn(REASONS, code) ? code : null;
}

/** Words for an errno code (`permission denied`), or null for an unknown one. */
export function fsReason(code: string): string | null {
  return REASONS[code] ?? null;
}

/**
 * `doing` completes "cannot ..." (`create the folder /x for the mirror`); `hint` says how to fix
 * it. Returns the error unchanged when it is not a file-system error we can explain.
 */
export function fsFailure(error: unknown, doing: string, hint: string): ClientFailure | unknown {
  if (error instanceof ClientFailure) return error;
  const code = fsErrorCode(error);
  if (!code) return error;
  const full = code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO' ? 'free some space (or check the disk), then try again; ' : '';
  return failure('input', `cannot ${doing}: ${REASONS[code]} (${code})`, full + hint, error);
}
