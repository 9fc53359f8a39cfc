/**
 * A real `fieldops serve` process on a fresh test database for the feed's end-to-end tests, with
 * the admin's token and a JSON caller that throws on any 4xx/5xx. Null when the dialect's
 * database is unavailable (the caller skips, saying why). Stopped and dropped at the test's end.
 */
import type { Test } from 'tap';
import { createTestDatabase, serverDataDir, unavailableReason } from '../../helpers/database.js';
import { serveProcess } from '../../helpers/serve-process.js';

export type Api = (method: string, path: string, body?: unknown) => Promise<any>;

export interface RealServer {
  url: string;
  token: string;
  api: Api;
}

export async function startRealServer(t: Test, adminPassword: string): Promise<RealServer | null> {
  const reason = await unavailableReason();
  if (reason) {
    t.pass('skipped', { skip: reason });
    return null;
  }
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const serve = serveProcess({ DATABASE_URL: db.location, FIELDOPS_DATA_DIR: serverDataDir(t), FIELDOPS_ADMIN_PASSWORD: adminPassword });
  const url = await serve.url;
  t.teardown(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
  });
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: adminPassword }) });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const api: Api = async (method, path, body) => {
    const response = await fetch(url + path, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  return { url, token, api };
}
