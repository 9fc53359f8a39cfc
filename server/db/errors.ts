import { ConflictError, DomainError, InputError, UnavailableError } from '../domain/errors.js';

/**
 * Driver errors become domain errors here, so services and handlers never see dialect codes:
 * unique violations are conflicts (concurrent duplicates never surface as 500s), and a
 * database that cannot be reached is 503.
 */
export function translateDbError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const code = (error as { code?: unknown })?.code;
  const message = (error as { message?: unknown })?.message;
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ConflictError('A record with the same unique key already exists.');
  }
  // Text the database cannot hold (a NUL byte, an invalid encoding) can only come from input.
  if (code === '22021' || code === '22P05' || code === '54000') {
    return new InputError('The request contains characters or values the database cannot store (such as a NUL byte).');
  }
  if (isUnavailable(code, message)) {
    return new UnavailableError('The database is unavailable; try again shortly.');
  }
  return error;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006',
  // Deadlock and serialization failure: the transaction was rolled back; retrying may succeed.
  '40P01', '40001',
  'SQLITE_BUSY', 'SQLITE_LOCKED',
]);

function isUnavailable(code: unknown, message: unknown): boolean {
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  // better-sqlite3 reports extended codes: SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, SQLITE_LOCKED_SHAREDCACHE, ...
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)_/.test(code)) return true;
  return typeof message === 'string' && /Timeout acquiring a connection|Connection terminated|connection timeout|not queryable|the database system is (starting up|shutting down)/i.test(message);
}

export function isUniqueViolation(error: unknown): boolean {
  return translateDbError(error) instanceof ConflictError;
}

/** Wraps every method of a repository so that its failures are translated (each wrapper made once). */
export function translated<T extends object>(repository: T): T {
  const wrappers = new Map<PropertyKey, unknown>();
  return new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        wrapper = async (...args: unknown[]) => {
          try {
            return await value.apply(target, args);
          } catch (error) {
            throw translateDbError(error);
          }
        };
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}
