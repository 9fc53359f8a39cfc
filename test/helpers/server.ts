import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { loadConfig } from '../../server/config.js';
import { startServer, type RunningServer } from '../../server/main.js';
import { createLogger } from '../../server/logger.js';
import type { Clock } from '../../server/db/time.js';
import { type TestDatabase, createTestDatabase, dialect, unavailableReason } from './database.js';

export const ADMIN_PASSWORD = 'Test-Superuser-Passphrase-7';
export const CLI_CLIENT = 'fieldops-cli';

/** A clock the test moves by hand (time is a process boundary, so it may be faked). */
export class ManualClock implements Clock {
  constructor(public current = Date.UTC(2026, 10, 20, 10, 0, 0, 123)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export interface TestServer {
  url: string;
  server: RunningServer;
  /** Everything the server logged, as text (for secret scans). */
  logs(): string;
  /** Password-grant tokens for a user (admin by default). */
  login(username?: string, password?: string): Promise<{ access_token: string; refresh_token: string }>;
  request(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  json<T = any>(path: string, init?: RequestInit & { token?: string }): Promise<{ status: number; body: T; headers: Headers }>;
}

export interface TestServerOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** A database to serve instead of a fresh one (its owner drops it). */
  database?: TestDatabase;
}

/**
 * Starts a real server on 127.0.0.1 over a fresh database of the dialect under test, and tears
 * it down after the test. Resolves to null (and marks the test skipped) when the dialect cannot
 * run here.
 */
export async function startTestServer(t: Test, options: TestServerOptions = {}): Promise<TestServer | null> {
  const reason = await unavailableReason();
  if (reason) {
    t.comment(reason);
    t.pass('skipped: ' + reason, { skip: reason });
    return null;
  }
  const database = options.database ?? (await createTestDatabase());
  let logText = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logText += chunk.toString();
      callback();
    },
  });
  const config = loadConfig(
    {
      FIELDOPS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FIELDOPS_PASSWORD_HASH_COST: String(2 ** 12),
      FIELDOPS_DATA_DIR: database.dataDir,
      LOG_LEVEL: 'info',
      // Every response is checked against the route's described schema (server/http/schemas).
      FIELDOPS_CHECK_RESPONSES: '1',
      ...options.env,
    },
    { port: 0, host: '127.0.0.1', database: database.location },
  );
  const server = await startServer(config, { logger: createLogger('info', sink), clock: options.clock });
  t.teardown(async () => {
    await server.close();
    if (!options.database) await database.drop();
    assertResponsesDescribed(server);
  });
  const request = (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
    return fetch(server.url + path, { ...init, headers });
  };
  const testServer: TestServer = {
    url: server.url,
    server,
    logs: () => logText,
    request,
    async json(path, init) {
      const response = await request(path, init);
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
    async login(username = 'admin', password = ADMIN_PASSWORD) {
      const response = await fetch(server.url + '/oauth2/token/', {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', client_id: CLI_CLIENT, username, password }),
      });
      if (response.status !== 200) throw new Error(`login of ${username} failed: ${response.status} ${await response.text()}`);
      return (await response.json()) as { access_token: string; refresh_token: string };
    },
  };
  return testServer;
}

export { dialect };

/** Sends a JSON body. */
export function jsonBody(value: unknown, init: RequestInit & { token?: string } = {}): RequestInit & { token?: string } {
  return { method: 'POST', ...init, headers: { 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) }, body: JSON.stringify(value) };
}

/**
 * Responses seen by a test server must match what /api/openapi.json describes: a violation
 * fails the test that saw it (and is also in the checker's file under the OS temp dir).
 */
export function assertResponsesDescribed(server: RunningServer): void {
  const violations = server.runtime.services.responseCheck?.violations ?? [];
  if (violations.length > 0) {
    const lines = violations.slice(0, 10).map((v) => `${v.method} ${v.path} (${v.route}) ${v.status}: ${v.problem}`);
    throw new Error(`responses that do not match their description in server/http/schemas/:\n${lines.join('\n')}`);
  }
}
