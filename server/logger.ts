import { pino, type DestinationStream, type Logger } from 'pino';

/** Paths never written to logs, wherever they appear in a logged object. */
export const REDACTED_PATHS = [
  'password', '*.password', 'token', '*.token', 'access_token', '*.access_token',
  'refresh_token', '*.refresh_token', 'client_secret', '*.client_secret', 'secret', '*.secret',
  'code', '*.code_verifier', 'authorization', '*.authorization', 'headers.authorization',
  '*.headers.authorization', 'headers.cookie', '*.headers.cookie',
];

/** Structured JSON logs (pino), secrets redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'fieldops' } };
  return destination ? pino(options, destination) : pino(options);
}
