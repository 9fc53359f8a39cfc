/** The merge's refusals (codes in the contract's error body; the batched push answers `code`). */
import { DomainError } from '../errors.js';

/** A delete (or a settling write) based on a revision the record has moved past. */
export class ChangedSinceBaseError extends DomainError {
  readonly code = 'changed_since_base';
  readonly status = 412;
  constructor(
    message: string,
    readonly revision: number,
  ) {
    super(message);
  }
}

/** Resolving with mine, but the field changed after the conflict: `current` is its value now. */
export class ConflictStaleError extends DomainError {
  readonly code = 'conflict_stale';
  readonly status = 409;
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super(message);
  }
}

/** The conflict was settled already the other way: `settledBy` is the value that stands. */
export class ConflictSettledError extends DomainError {
  readonly code = 'conflict_settled';
  readonly status = 409;
  constructor(
    message: string,
    readonly settledBy: 'policy' | 'mine' | 'theirs',
  ) {
    super(message);
  }
}
