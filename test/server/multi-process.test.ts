import t from 'tap';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';
import { TYPES } from '../helpers/catalog.js';

t.test(`two server processes on one database agree on validators (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir, FIELDOPS_ADMIN_PASSWORD: 'Two-Processes-Pass-1', FIELDOPS_TRUST_PROXY: 'true', FIELDOPS_PATROL_SWEEP_SECONDS: '1' };
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
  const revalidated = await fetch(firstUrl + TYPES, { headers: { ...headers, 'If-None-Match': before! } });
  t.equal(revalidated.status, 304, 'the first process revalidates the list as current');
  const patched = await fetch(`${secondUrl}${TYPES}/shared`, { method: 'PATCH', headers, body: JSON.stringify({ display: 'Changed by the second' }) });
  t.equal(patched.status, 200);
  const seen = await fetch(`${firstUrl}${TYPES}/shared`, { headers: { ...headers, 'If-None-Match': before! } });
  t.equal(seen.status, 200, 'the first process sees the write at once');
  t.equal(((await seen.json()) as { display: string }).display, 'Changed by the second');
  const listSeen = await fetch(firstUrl + TYPES, { headers: { ...headers, 'If-None-Match': before! } });
  t.equal(listSeen.status, 200, 'a conditional list GET (the revalidation fast path) sees it at once too');
  t.equal(await etag(firstUrl, TYPES), await etag(secondUrl, TYPES), 'and both agree on the new ETag');
  t.not(await etag(firstUrl, TYPES), before);
  const body = (await (await fetch(`${firstUrl}${TYPES}/shared`, { headers })).json()) as { image_url: string };
  t.equal(body.image_url, 'https://fieldops.example/static/sprite-src/shared.svg', 'absolute URLs use the public origin');

  // Optimistic concurrency: two writers with the same If-Match, one through each process.
  const tag = (await fetch(`${firstUrl}${TYPES}/shared`, { headers })).headers.get('etag')!;
  const results = await Promise.all(
    [firstUrl, secondUrl].map((base, i) => fetch(`${base}${TYPES}/shared`, { method: 'PATCH', headers: { ...headers, 'If-Match': tag }, body: JSON.stringify({ display: `Writer ${i}` }) })),
  );
  t.same(results.map((r) => r.status).sort(), [200, 412], 'one wins, the other is told its copy is stale');
  const winner = results.findIndex((r) => r.status === 200);
  const final = (await (await fetch(`${secondUrl}${TYPES}/shared`, { headers })).json()) as { display: string };
  t.equal(final.display, `Writer ${winner}`, 'no lost update');

  // Rank from both processes at once leaves one consistent order.
  for (const value of ['r1', 'r2', 'r3', 'r4']) await fetch(firstUrl + TYPES, { method: 'POST', headers, body: JSON.stringify({ value, display: value }) });
  const ids = Object.fromEntries(((await (await fetch(firstUrl + TYPES, { headers })).json()) as Array<{ value: string; id: string }>).map((type) => [type.value, type.id]));
  const ranks = await Promise.all([
    fetch(`${firstUrl}${TYPES}/r4/rank`, { method: 'POST', headers, body: JSON.stringify({ before_key: ids.r1 }) }),
    fetch(`${secondUrl}${TYPES}/r3/rank`, { method: 'POST', headers, body: JSON.stringify({ before_key: ids.r1 }) }),
  ]);
  t.same(ranks.map((r) => r.status), [204, 204]);
  const ordered = (await (await fetch(secondUrl + TYPES, { headers })).json()) as Array<{ value: string; ordernum: number }>;
  const ordernums = ordered.map((type) => type.ordernum);
  t.equal(new Set(ordernums).size, ordernums.length, 'no two types share an ordernum');
  t.same(ordernums, [...ordernums].sort((a, b) => a - b), 'the list is in ordernum order');
  const position = (value: string) => ordered.findIndex((type) => type.value === value);
  t.ok(position('r4') < position('r1') && position('r3') < position('r1'), 'both moved before r1');

  // Both processes sweep every second: each patrol that falls due is completed exactly once.
  const soon = new Date(Date.now() + 1200).toISOString();
  const sweepable = await Promise.all(Array.from({ length: 6 }, (_, i) =>
    fetch(`${[firstUrl, secondUrl][i % 2]}/api/v1.0/activity/patrols`, { method: 'POST', headers, body: JSON.stringify({ title: `sweep ${i}`, patrol_segments: [{ time_range: { start_time: new Date(Date.now() - 3600_000).toISOString(), end_time: soon } }] }) }).then((r) => r.json() as Promise<{ id: string; state: string }>),
  ));
  t.ok(sweepable.every((patrol) => patrol.state === 'open'), 'open until their segments end');
  await new Promise((resolve) => setTimeout(resolve, 3500));
  for (const patrol of sweepable) {
    const after = (await (await fetch(`${firstUrl}/api/v1.0/activity/patrols/${patrol.id}`, { headers })).json()) as { state: string; updates: Array<{ user: { username: string } }> };
    t.equal(after.state, 'done');
    t.equal(after.updates.filter((update) => update.user.username === 'system').length, 1, 'one automatic transition, by the system');
  }
});
