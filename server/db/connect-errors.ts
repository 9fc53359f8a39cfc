/**
 * Failures to open or reach the database at start-up, translated into set-up mistakes with a
 * hint (driver error codes are a dialect quirk, so they are read here and nowhere else).
 * Anything not recognised passes through unchanged: it is a bug, and keeps its stack.
 */
import { ConfigError, type DatabaseConfig } from '../config.js';
import { redactUrl } from './knex.js';

interface DriverError {
  code?: string;
  message?: string;
  errors?: DriverError[];
}

export function translateConnectError(error: unknown, config: DatabaseConfig): unknown {
  if (error instanceof ConfigError || !error || typeof error !== 'object') return error;
  const failure = error as DriverError;
  // AggregateError (several addresses of one host refused): the first says enough.
  const code = failure.code ?? failure.errors?.[0]?.code;
  const message = failure.message ?? '';
  const options = { cause: error };
  if (config.dialect === 'postgres') {
    const url = redactUrl(config.url);
    const database = safeDatabaseName(config.url);
    if (code === '3D000') {
      return new ConfigError(`the PostgreSQL database "${database}" does not exist (${url})`, `create it first: createdb -h <host> -U <user> ${database}   (or psql -c 'CREATE DATABASE "${database}"')`, options);
    }
    if (code === '28P01' || code === '28000') {
      return new ConfigError(`PostgreSQL refused the login (${url}): ${message}`, 'check the user and password in DATABASE_URL (postgres://user:password@host:5432/db) and pg_hba.conf', options);
    }
    if (code === '42501') {
      // insufficient_privilege: the role may connect but not create fieldops's tables (PostgreSQL 15+ gives no CREATE on public by default).
      const user = safeUserName(config.url);
      return new ConfigError(`the PostgreSQL user "${user}" may not create fieldops's tables in "${database}" (${url})`, `let the user own the database (ALTER DATABASE "${database}" OWNER TO "${user}"), or grant it CREATE: psql -d ${database} -c 'GRANT CREATE ON SCHEMA public TO "${user}"' (docs/deploy.md, "Creating the PostgreSQL database")`, options);
    }
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || /timeout|terminated/i.test(message)) {
      return new ConfigError(`cannot reach PostgreSQL at ${url} (${code ?? message})`, 'is PostgreSQL running and listening there? check the host and port in DATABASE_URL (`pg_isready -h <host> -p <port>` tells)', options);
    }
    return error;
  }
  const file = config.filename;
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new ConfigError(`cannot create the folder of the SQLite file ${file}: a part of that path is a regular file`, 'choose another --data-dir (or FIELDOPS_DATA_DIR / --database), or move that file away', options);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code === 'SQLITE_READONLY_DIRECTORY') {
    return new ConfigError(`cannot open the SQLite file ${file} for writing (${code})`, 'check the permissions of the file and its folder, or choose another --data-dir', options);
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new ConfigError(`${file} is not a SQLite database fieldops can use (${code})`, 'point --database (or --data-dir) at a fieldops database, or at a path that does not exist yet', options);
  }
  return error;
}

function safeUserName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || 'postgres';
  } catch {
    return '(unparsable URL)';
  }
}

function safeDatabaseName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
  } catch {
    return '(unparsable URL)';
  }
}
