/**
 * The diff engine refuses documents beyond its limits (fields, nesting, UI entries) with a
 * `SchemaDiffLimitError`; for the CLI that is the user's document to fix, so it becomes an
 * `error:` and a `hint:` (exit 1), never an "unexpected error".
 */
import { SchemaDiffLimitError } from '../../schema/diff/index.js';
import { safeText } from '../../sync/safe-text.js';
import { UserFacingError } from '../errors.js';

/** Runs a schema comparison; `what` names what was compared (e.g. `"T": mirror → file.json`). */
export function explainDiffLimit<R>(what: string, compare: () => R): R {
  try {
    return compare();
  } catch (error) {
    throw asUserFacing(what, error);
  }
}

/** The error itself unless it is a `SchemaDiffLimitError`. */
export function asUserFacing(what: string, error: unknown): unknown {
  if (!(error instanceof SchemaDiffLimitError)) return error;
  return new UserFacingError(
    safeText(`cannot compare ${what}: ${error.message} (at ${error.pointer || '/'})`),
    'the server refuses such a schema too: split the type, or reduce its fields, nesting or UI entries',
    1,
    { cause: error },
  );
}
