import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Server configuration: parsed once from the environment and the command line, typed, then
 * frozen. Nothing else in the server reads `process.env`.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** `sqlite:<path>` style file path, or a `postgres://` URL. */
  readonly database: DatabaseConfig;
  /** Root of everything the server writes to disk: the SQLite file and stored uploads. */
  readonly dataDir: string;
  readonly adminPassword: string | null;
  /**
   * Where a generated admin password is written (0600) instead of being printed, for services
   * whose stderr is kept in logs (journald, docker logs). Null: printed once on stderr.
   */
  readonly adminPasswordFile: string | null;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  readonly authorizationCodeTtlSeconds: number;
  readonly jsonBodyLimitBytes: number;
  readonly formBodyLimitBytes: number;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when building absolute URLs. */
  readonly trustProxy: boolean;
  /**
   * How many proxies in front of the server append to X-Forwarded-For: the client address is
   * the entry this many from the right (entries further left are written by the client).
   * Only read when `trustProxy`.
   */
  readonly trustProxyHops: number;
  /** Concurrent connections one peer address may hold open; 0: no cap. */
  readonly maxConnectionsPerAddress: number;
  /** scrypt verifications (logins, client secrets) running at once / waiting (in all, per address); beyond: 503. */
  readonly scrypt: { readonly concurrency: number; readonly queue: number; readonly queuePerAddress: number };
  readonly logLevel: string;
  readonly passwordHashCost: number;
  readonly throttle: ThrottleConfig;
  readonly loadDemoData: boolean;
  /** How often the automatic-done sweep runs; 0 turns it off. */
  readonly patrolSweepSeconds: number;
  /** How long a resolved bearer token or client may be reused without a database read (0: never). */
  readonly authCacheMs: number;
  /** Largest patrol file upload (413 beyond). */
  readonly maxFileBytes: number;
  /** Concurrent uploads (patrol files, camera-trap images) per principal and per process (429 beyond). */
  readonly uploads: { readonly perPrincipal: number; readonly total: number };
  /** A static bearer token that may read /metrics (for scrapers); null: only view_metrics principals. */
  readonly metricsToken: string | null;
  /** Check every response against its described schema, recording violations (test runs). */
  readonly checkResponses: boolean;
  /** Response profile of clients that name none (CONTRACT §11): FIELDOPS_API_PROFILE. */
  readonly apiProfile: 'fieldops' | 'earthranger';
  /** Where uploaded files live: a directory, or an S3-compatible bucket (issue 17). */
  readonly fileStore: FileStoreConfig;
  /**
   * Removing the bytes of deleted files (issue 24): how often each process sweeps (retries,
   * crash recovery, the store's one-time scan; 0 turns the periodic sweep off, a deletion still
   * removes its bytes at once), and the grace period: how long an upload's lease lasts without
   * renewal, and how old unreferenced bytes found by the scan must be before they go.
   */
  readonly fileSweepSeconds: number;
  readonly fileGraceSeconds: number;
  /** Server processes sharing the port (node:cluster); 1: no cluster, one process as before. */
  readonly workers: number;
  /**
   * The realtime channel's limits (issue 24): seconds a session has to authorise after its
   * handshake, sessions one client address (as FIELDOPS_TRUST_PROXY decides it; 0: no cap) and
   * the process may hold open. Per process: with workers, per worker.
   */
  readonly realtime: { readonly authorizeSeconds: number; readonly sessionsPerAddress: number; readonly sessions: number };
  /** How long the sync change log keeps a row (FIELDOPS_SYNC_RETENTION_DAYS, default 90); older cursors are answered 410. */
  readonly syncRetentionDays: number;
  /** How long a write's Idempotency-Key and answer are kept (FIELDOPS_IDEMPOTENCY_DAYS, default 30, at least 30). */
  readonly idempotencyDays: number;
  /**
   * The batched push's admission (issue 26 §4): its largest body (FIELDOPS_PUSH_BODY_BYTES, 413
   * beyond), batches running at once per process (FIELDOPS_PUSH_CONCURRENCY, 429 beyond) and the
   * time a batch may run before the rest of its entries are `deferred` (FIELDOPS_PUSH_BUDGET_MS).
   */
  readonly push: { readonly bodyBytes: number; readonly concurrency: number; readonly budgetMs: number };
  /** JSON and text responses larger than this are sent br or gzip when the client accepts it (FIELDOPS_COMPRESS_MIN_BYTES). */
  readonly compressMinBytes: number;
  /**
   * Resumable uploads (tus; server/storage/tus/): how long an upload may stay unfinished or
   * unattached (FIELDOPS_UPLOAD_EXPIRY_HOURS, default 168, sent as Upload-Expires), and how
   * often each process removes expired ones (FIELDOPS_UPLOAD_SWEEP_SECONDS, default 900; 0: never).
   */
  readonly uploadExpiryHours: number;
  readonly uploadSweepSeconds: number;
}

export type FileStoreConfig =
  | { readonly kind: 'file'; readonly dir: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      /** Key prefix, '' or ending in '/'. */
      readonly prefix: string;
      /** Any S3-compatible endpoint (path-style addressing); null: AWS itself. */
      readonly endpoint: string | null;
      readonly region: string;
      /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; null: the SDK's default chain. */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
      /** Downloads redirect to a presigned URL instead of streaming through the server. */
      readonly presign: boolean;
    };

export type DatabaseConfig =
  | { readonly dialect: 'sqlite'; readonly filename: string; readonly synchronous: 'NORMAL' | 'FULL' }
  | { readonly dialect: 'postgres'; readonly url: string; readonly poolMax: number };

export interface ThrottleConfig {
  /** Failed password attempts allowed per username within the window. */
  readonly perUsername: number;
  /** Failed password and client-secret attempts allowed per client address within the window. */
  readonly perAddress: number;
  /** Failed secret attempts allowed per confidential client_id within the window. */
  readonly perClient: number;
  readonly windowSeconds: number;
}

export interface ConfigOverrides {
  host?: string;
  port?: number;
  database?: string;
  dataDir?: string;
  loadDemoData?: boolean;
  /** `--workers`: a count or `auto`, parsed by `parseWorkers`. */
  workers?: string;
}

/** A set-up mistake the operator can fix: a message, and a hint saying how. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const DEFAULTS = {
  host: '127.0.0.1',
  port: 8000,
  dataDir: './data',
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  authorizationCodeTtlSeconds: 60,
  jsonBodyLimitBytes: 1024 * 1024,
  formBodyLimitBytes: 64 * 1024,
  poolMax: 10,
  // scrypt N: 2^15 costs ~60 ms on one core of the reference machine; tests may lower it.
  passwordHashCost: 2 ** 15,
  throttle: { perUsername: 5, perAddress: 20, perClient: 20, windowSeconds: 900 },
  // Behind a trusted proxy every connection comes from the proxy: no per-address cap by default.
  maxConnectionsPerAddress: 128,
  // Two of libuv's four threads at most, so file I/O and other crypto always have two.
  scrypt: { concurrency: 2, queue: 32, queuePerAddress: 4 },
} as const;

export function loadConfig(env: NodeJS.ProcessEnv, overrides: ConfigOverrides = {}): Config {
  const dataDir = path.resolve(overrides.dataDir ?? env.FIELDOPS_DATA_DIR ?? DEFAULTS.dataDir);
  const config: Config = {
    host: overrides.host ?? env.HOST ?? DEFAULTS.host,
    port: overrides.port ?? integer(env.PORT, 'PORT', DEFAULTS.port, 0, 65535),
    database: parseDatabase(overrides.database ?? env.DATABASE_URL, dataDir, env, overrides.database !== undefined ? '--database' : 'DATABASE_URL'),
    dataDir,
    adminPassword: env.FIELDOPS_ADMIN_PASSWORD || null,
    adminPasswordFile: env.FIELDOPS_ADMIN_PASSWORD_FILE ? path.resolve(env.FIELDOPS_ADMIN_PASSWORD_FILE) : null,
    accessTokenTtlSeconds: integer(env.FIELDOPS_ACCESS_TOKEN_TTL, 'FIELDOPS_ACCESS_TOKEN_TTL', DEFAULTS.accessTokenTtlSeconds, 1, 86400 * 7),
    refreshTokenTtlSeconds: integer(env.FIELDOPS_REFRESH_TOKEN_TTL, 'FIELDOPS_REFRESH_TOKEN_TTL', DEFAULTS.refreshTokenTtlSeconds, 60, 86400 * 365),
    authorizationCodeTtlSeconds: DEFAULTS.authorizationCodeTtlSeconds,
    jsonBodyLimitBytes: integer(env.FIELDOPS_JSON_LIMIT, 'FIELDOPS_JSON_LIMIT', DEFAULTS.jsonBodyLimitBytes, 1024, 64 * 1024 * 1024),
    formBodyLimitBytes: DEFAULTS.formBodyLimitBytes,
    trustProxy: bool(env.FIELDOPS_TRUST_PROXY, false),
    trustProxyHops: integer(env.FIELDOPS_TRUST_PROXY_HOPS, 'FIELDOPS_TRUST_PROXY_HOPS', 1, 1, 10),
    maxConnectionsPerAddress: integer(
      env.FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS,
      'FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS',
      bool(env.FIELDOPS_TRUST_PROXY, false) ? 0 : DEFAULTS.maxConnectionsPerAddress,
      0,
      100000,
    ),
    scrypt: {
      concurrency: integer(env.FIELDOPS_SCRYPT_CONCURRENCY, 'FIELDOPS_SCRYPT_CONCURRENCY', DEFAULTS.scrypt.concurrency, 1, 64),
      queue: integer(env.FIELDOPS_SCRYPT_QUEUE, 'FIELDOPS_SCRYPT_QUEUE', DEFAULTS.scrypt.queue, 0, 10000),
      queuePerAddress: integer(env.FIELDOPS_SCRYPT_QUEUE_PER_ADDRESS, 'FIELDOPS_SCRYPT_QUEUE_PER_ADDRESS', DEFAULTS.scrypt.queuePerAddress, 0, 10000),
    },
    logLevel: env.LOG_LEVEL ?? 'info',
    passwordHashCost: integer(env.FIELDOPS_PASSWORD_HASH_COST, 'FIELDOPS_PASSWORD_HASH_COST', DEFAULTS.passwordHashCost, 2 ** 10, 2 ** 20),
    throttle: {
      perUsername: integer(env.FIELDOPS_THROTTLE_PER_USERNAME, 'FIELDOPS_THROTTLE_PER_USERNAME', DEFAULTS.throttle.perUsername, 1, 10000),
      perAddress: integer(env.FIELDOPS_THROTTLE_PER_ADDRESS, 'FIELDOPS_THROTTLE_PER_ADDRESS', DEFAULTS.throttle.perAddress, 1, 100000),
      perClient: integer(env.FIELDOPS_THROTTLE_PER_CLIENT, 'FIELDOPS_THROTTLE_PER_CLIENT', DEFAULTS.throttle.perClient, 1, 100000),
      windowSeconds: DEFAULTS.throttle.windowSeconds,
    },
    loadDemoData: overrides.loadDemoData ?? false,
    authCacheMs: integer(env.FIELDOPS_AUTH_CACHE_MS, 'FIELDOPS_AUTH_CACHE_MS', 2000, 0, 60000),
    maxFileBytes: integer(env.FIELDOPS_MAX_FILE_BYTES, 'FIELDOPS_MAX_FILE_BYTES', 50 * 1024 * 1024, 1024, 2 ** 31),
    uploads: {
      perPrincipal: integer(env.FIELDOPS_UPLOADS_PER_PRINCIPAL, 'FIELDOPS_UPLOADS_PER_PRINCIPAL', 4, 1, 1000),
      total: integer(env.FIELDOPS_UPLOADS_TOTAL, 'FIELDOPS_UPLOADS_TOTAL', 32, 1, 100000),
    },
    patrolSweepSeconds: integer(env.FIELDOPS_PATROL_SWEEP_SECONDS, 'FIELDOPS_PATROL_SWEEP_SECONDS', 60, 0, 86400),
    metricsToken: env.FIELDOPS_METRICS_TOKEN || null,
    checkResponses: bool(env.FIELDOPS_CHECK_RESPONSES, false),
    apiProfile: oneOf(env.FIELDOPS_API_PROFILE, 'FIELDOPS_API_PROFILE', ['fieldops', 'earthranger'] as const, 'fieldops'),
    fileStore: parseFileStore(env.FIELDOPS_FILE_STORE, dataDir, env),
    fileSweepSeconds: integer(env.FIELDOPS_FILE_SWEEP_SECONDS, 'FIELDOPS_FILE_SWEEP_SECONDS', 300, 0, 86400),
    fileGraceSeconds: integer(env.FIELDOPS_FILE_GRACE_SECONDS, 'FIELDOPS_FILE_GRACE_SECONDS', 3600, 60, 7 * 86400),
    syncRetentionDays: integer(env.FIELDOPS_SYNC_RETENTION_DAYS, 'FIELDOPS_SYNC_RETENTION_DAYS', 90, 1, 36500),
    idempotencyDays: integer(env.FIELDOPS_IDEMPOTENCY_DAYS, 'FIELDOPS_IDEMPOTENCY_DAYS', 30, 30, 36500),
    push: {
      bodyBytes: integer(env.FIELDOPS_PUSH_BODY_BYTES, 'FIELDOPS_PUSH_BODY_BYTES', 4 * 1024 * 1024, 1024, 64 * 1024 * 1024),
      concurrency: integer(env.FIELDOPS_PUSH_CONCURRENCY, 'FIELDOPS_PUSH_CONCURRENCY', 2, 1, 1000),
      budgetMs: integer(env.FIELDOPS_PUSH_BUDGET_MS, 'FIELDOPS_PUSH_BUDGET_MS', 20_000, 0, 600_000),
    },
    workers: overrides.workers !== undefined ? parseWorkers(overrides.workers, '--workers') : env.FIELDOPS_WORKERS ? parseWorkers(env.FIELDOPS_WORKERS, 'FIELDOPS_WORKERS') : 1,
    compressMinBytes: integer(env.FIELDOPS_COMPRESS_MIN_BYTES, 'FIELDOPS_COMPRESS_MIN_BYTES', 1024, 0, 64 * 1024 * 1024),
    uploadExpiryHours: integer(env.FIELDOPS_UPLOAD_EXPIRY_HOURS, 'FIELDOPS_UPLOAD_EXPIRY_HOURS', 168, 1, 24 * 365),
    uploadSweepSeconds: integer(env.FIELDOPS_UPLOAD_SWEEP_SECONDS, 'FIELDOPS_UPLOAD_SWEEP_SECONDS', 900, 0, 86400),
    realtime: {
      authorizeSeconds: integer(env.FIELDOPS_REALTIME_AUTHORIZE_SECONDS, 'FIELDOPS_REALTIME_AUTHORIZE_SECONDS', 10, 1, 300),
      sessionsPerAddress: integer(env.FIELDOPS_REALTIME_SESSIONS_PER_ADDRESS, 'FIELDOPS_REALTIME_SESSIONS_PER_ADDRESS', 128, 0, 1_000_000),
      sessions: integer(env.FIELDOPS_REALTIME_SESSIONS, 'FIELDOPS_REALTIME_SESSIONS', 10_000, 1, 1_000_000),
    },
  };
  return deepFreeze(config);
}

/**
 * What DATABASE_URL (or `--database`, named by `name`) may be:
 * - `postgres://...` or `postgresql://...`: PostgreSQL (libpq's URL, passed to the driver as is);
 * - a file path, absolute or relative to the working directory: SQLite;
 * - `sqlite:<path>` (also `sqlite://<path>`, so `sqlite:///srv/x.sqlite3` is absolute): the path as written;
 * - `file:<path>` or `file:///<absolute path>` (RFC 8089; `file://localhost/...` too): a file URI,
 *   percent-escapes decoded, no query (SQLite's `?mode=...` options are not taken).
 * Anything else that starts like a URL scheme (`mysql://`, `postgress://`, `localhost:5432/db`)
 * is refused, never taken for a file name: a relative path whose first part holds a colon is
 * written `./a:b`.
 */
export function parseDatabase(value: string | undefined, dataDir: string, env: NodeJS.ProcessEnv = {}, name = 'DATABASE_URL'): DatabaseConfig {
  const scheme = value ? /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase() : undefined;
  if (value && (scheme === 'postgres' || scheme === 'postgresql')) {
    if (!/^postgres(ql)?:\/\//i.test(value)) throw databaseUrlError(name, value, `"${scheme}:" is not followed by //`);
    return { dialect: 'postgres', url: value, poolMax: integer(env.FIELDOPS_PG_POOL_MAX, 'FIELDOPS_PG_POOL_MAX', DEFAULTS.poolMax, 1, 1000) };
  }
  let filename: string;
  if (!value) filename = path.join(dataDir, 'fieldops.sqlite3');
  else if (scheme === undefined) filename = path.resolve(value);
  else if (scheme === 'sqlite') filename = path.resolve(nonEmpty(value.replace(/^sqlite:(\/\/)?/i, ''), name, value));
  else if (scheme === 'file') filename = fileUriPath(value, name);
  else {
    const nearMiss = /^(postgr|postgis|pg|psql)/.test(scheme) ? `did you mean postgres://? ` : '';
    throw databaseUrlError(name, value, `fieldops does not use the scheme "${scheme}:"`, nearMiss);
  }
  const synchronous = (env.FIELDOPS_SQLITE_SYNCHRONOUS ?? 'NORMAL').toUpperCase();
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new ConfigError('FIELDOPS_SQLITE_SYNCHRONOUS must be NORMAL or FULL');
  }
  return { dialect: 'sqlite', filename, synchronous };
}

function fileUriPath(value: string, name: string): string {
  if (/[?#]/.test(value)) throw databaseUrlError(name, value, 'a file: URI here takes no query or fragment (SQLite URI options are not supported)');
  if (!/^file:\/\//i.test(value)) return path.resolve(nonEmpty(safeDecode(value.slice('file:'.length), name, value), name, value));
  try {
    return fileURLToPath(value);
  } catch {
    throw databaseUrlError(name, value, 'a file:// URI names an absolute path on this machine: file:///srv/fieldops.sqlite3 (or write file:<relative path>)');
  }
}

function safeDecode(text: string, name: string, value: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw databaseUrlError(name, value, 'it holds a malformed percent-escape');
  }
}

function nonEmpty(file: string, name: string, value: string): string {
  if (!file) throw databaseUrlError(name, value, 'it names no file');
  return file;
}

function databaseUrlError(name: string, value: string, why: string, hintPrefix = ''): ConfigError {
  // A URL's password is not repeated (userinfo `user:password@`).
  const shown = value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/, '$1:***@');
  return new ConfigError(
    `${name} "${shown}" is not a database fieldops can use: ${why}`,
    `${hintPrefix}give a PostgreSQL URL (postgres://user:password@host:5432/db, or postgresql://) or a SQLite file: a path (data/fieldops.sqlite3, /srv/fieldops.sqlite3, ./name:with-colon.sqlite3), sqlite:<path>, file:<path> or file:///<absolute path>`,
  );
}

/** `file:<dir>` (default `<data dir>/files`) or `s3://<bucket>/<prefix>`. */
export function parseFileStore(value: string | undefined, dataDir: string, env: NodeJS.ProcessEnv = {}): FileStoreConfig {
  if (!value) return { kind: 'file', dir: path.join(dataDir, 'files') };
  if (value.startsWith('file:')) {
    const dir = value.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (!dir) throw new ConfigError('FIELDOPS_FILE_STORE=file:<dir> needs a directory');
    return { kind: 'file', dir: path.resolve(dir) };
  }
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!s3) throw new ConfigError(`FIELDOPS_FILE_STORE must be file:<dir> or s3://<bucket>/<prefix>, got "${value}"`);
  const prefix = (s3[2] ?? '').replace(/^\/+|\/+$/g, '');
  const endpoint = env.FIELDOPS_S3_ENDPOINT || null;
  if (endpoint && !/^https?:\/\/[^\s]+$/i.test(endpoint)) throw new ConfigError(`FIELDOPS_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  const accessKeyId = env.AWS_ACCESS_KEY_ID ?? '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY ?? '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together');
  return {
    kind: 's3', bucket: s3[1]!, prefix: prefix ? `${prefix}/` : '', endpoint, region: env.FIELDOPS_S3_REGION || env.AWS_REGION || 'us-east-1',
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : null, presign: bool(env.FIELDOPS_S3_PRESIGN, false),
  };
}

/** Most worker processes one server may fork (far past any core count; a typo like 1000 is refused). */
export const MAX_WORKERS = 256;

/** `auto` (one per core: os.availableParallelism()) or a whole number from 1 to MAX_WORKERS. */
export function parseWorkers(raw: string, name: string): number {
  const value = raw.trim().toLowerCase();
  if (value === 'auto') return Math.min(os.availableParallelism(), MAX_WORKERS);
  const count = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new ConfigError(
      `${name} must be a number of processes from 1 to ${MAX_WORKERS}, or auto; got "${raw}"`,
      `give auto (one per core: ${os.availableParallelism()} here) or a count such as 2; 1 runs one process without a cluster`,
    );
  }
  return count;
}

function integer(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(raw: string | undefined, name: string, values: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function bool(raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  return /^(1|true|yes|on)$/i.test(raw);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
