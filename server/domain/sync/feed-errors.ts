/**
 * The feed's own answers beyond bad input (docs/sync.md §Errors). The HTTP layer puts `code`
 * into the contract's error body as the issue of the field `sync`, so a client tells them apart:
 * `{"status": {...}, "sync": [{"code": "sync_cursor_expired", ...}]}`.
 */
import { SYNC_ERRORS } from '../../../protocol/sync.js';
import { DomainError } from '../errors.js';

export type SyncErrorCode = (typeof SYNC_ERRORS)[keyof typeof SYNC_ERRORS];

export class SyncFeedError extends DomainError {
  constructor(
    readonly code: SyncErrorCode,
    readonly status: number,
    message: string,
    readonly hints: string[],
    override readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** The cursor is older than what the log still holds (retention): start again from null. */
  static expired(): SyncFeedError {
    return new SyncFeedError(SYNC_ERRORS.cursorExpired, 410, 'The server\'s change history no longer reaches this cursor.', ['Start again with cursor null (a new snapshot).']);
  }

  /** The cursor was issued under other grants (permissions, visible groups, profile). */
  static scopesChanged(): SyncFeedError {
    return new SyncFeedError(SYNC_ERRORS.scopesChanged, 410, 'What you may see has changed since this cursor was issued.', ['Drop the pulled records and start again with cursor null.']);
  }

  /** The tenant's records written before the change log existed are still being logged. */
  static preparing(retryAfterSeconds: number): SyncFeedError {
    return new SyncFeedError(SYNC_ERRORS.preparing, 503, 'The change feed of this site is being prepared.', ['Retry after the time in Retry-After.'], retryAfterSeconds);
  }
}
