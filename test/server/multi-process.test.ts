import t from 'tap';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';
import { TYPES } from '../helpers/catalog.js';

t.test(`two server processes on one database agree on validators (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.location + '.data', FIELDOPS_ADMIN_PASSWORD: 'Two-Processes-Pass-1', FIELDOPS_TRUST_PROXY: 'true' };
  const first = serveProcess(env);
  const firstUrl = await first.url;
  const second = serveProcess(env);
  const secondUrl = await second.url;
  t.teardown(async () => {
    first.child.kill('SIGTERM');
    second.child.kill('SIGTERM');
    await Promise.all([first.exited, second.exited]);
  });
  const login = await fetch(`${firstUrl}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: 'Two-Processes-Pass-1' }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  // As behind a load balancer: one public origin for both processes (image_url is absolute,
  // so the origin is part of every body and of its ETag).
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'X-Forwarded-Host': 'fieldops.example', 'X-Forwarded-Proto': 'https' };
  const etag = async (base: string, path: string) => (await fetch(base + path, { headers })).headers.get('etag');

  const created = await fetch(firstUrl + TYPES, { method: 'POST', headers, body: JSON.stringify({ value: 'shared', display: 'Shared' }) });
  t.equal(created.status, 201, 'created through the first process');
  for (const path of [TYPES, `${TYPES}?include_schema=true`, `${TYPES}/shared`]) {
    t.equal(await etag(firstUrl, path), await etag(secondUrl, path), `identical ETags for ${path}`);
  }
  const before = await etag(secondUrl, TYPES);
  const patched = await fetch(`${secondUrl}${TYPES}/shared`, { method: 'PATCH', headers, body: JSON.stringify({ display: 'Changed by the second' }) });
  t.equal(patched.status, 200);
  const seen = await fetch(`${firstUrl}${TYPES}/shared`, { headers: { ...headers, 'If-None-Match': before! } });
  t.equal(seen.status, 200, 'the first process sees the write at once');
  t.equal(((await seen.json()) as { display: string }).display, 'Changed by the second');
  t.equal(await etag(firstUrl, TYPES), await etag(secondUrl, TYPES), 'and both agree on the new ETag');
  t.not(await etag(firstUrl, TYPES), before);
  const body = (await (await fetch(`${firstUrl}${TYPES}/shared`, { headers })).json()) as { image_url: string };
  t.equal(body.image_url, 'https://fieldops.example/static/sprite-src/shared.svg', 'absolute URLs use the public origin');
});
