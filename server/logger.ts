import { pino, type DestinationStream, type Logger } from 'pino';

/** Paths never written to logs, wherever they appear in a logged object. */
export const REDACTED_PATHS = [
  'password', '*.password', 'token', '*.token', 'access_token', '*.access_token',
  'refresh_token', '*.refresh_token', 'client_secret', '*.client_secret', 'secret', '*.secret',
  'code', '*.code_verifier', 'authorization', '*.authorization', 'headers.authorization',
  '*.headers.authorization', 'headers.cookie', '*.headers.cookie',
];

/**
 * PostgreSQL's error fields that quote stored values or statements (`detail`: "Key (tenant_id,
 * id)=(...)"; `where`, `internalQuery`: statement text). A logged error keeps its code,
 * routine, table and constraint, which say what failed. Statement text in knex's messages is
 * cut where the error arises (server/db/statement-text.ts).
 */
const VALUE_FIELDS = ['detail', 'where', 'internalQuery'];

function loggedError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (!serialized || typeof serialized !== 'object') return serialized;
  for (const field of VALUE_FIELDS) delete (serialized as Record<string, unknown>)[field];
  return serialized;
}

/** Structured JSON logs (pino), secrets redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'fieldops' }, serializers: { err: loggedError } };
  return destination ? pino(options, destination) : pino(options);
}
