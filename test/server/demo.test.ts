import path from 'node:path';
import t from 'tap';
import { loadDemoData } from '../../server/domain/demo.js';
import { packageRoot } from '../../server/domain/users/common-passwords.js';
import { dialect, startTestServer } from '../helpers/server.js';

t.test(`demo data loads once into the empty default tenant (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { store, admin } = s.server.runtime;
  const dir = path.join(packageRoot(), 'fixtures/demo');
  const loaded = await loadDemoData({ store, admin }, dir);
  t.same(loaded.map((line) => line.split(' ')[2]), ['ranger', 'analyst']);
  const ranger = await s.login('ranger', 'Demo-Acacia-Patrol-2026');
  t.equal((await s.json('/users/me', { token: ranger.access_token })).body.data.name, 'Wanjiru Kamau');
  t.equal((await s.json('/users/', { token: ranger.access_token })).status, 403, 'the ranger cannot list users');
  const analyst = await s.login('analyst', 'Demo-Baobab-Reports-2026');
  t.equal((await s.json('/users/', { token: analyst.access_token })).body.data.length, 3);
  t.same(await loadDemoData({ store, admin }, dir), [], 'a tenant with users is left alone');
});
