import t from 'tap';
import { ADMIN_PASSWORD, type TestServer, dialect, startTestServer } from '../helpers/server.js';
import { userToken } from './sensors-support.js';

type Json = Record<string, any>;

async function earthRangerToken(s: TestServer, username = 'admin', password = ADMIN_PASSWORD): Promise<string> {
  if (!(await s.server.runtime.database.knex('oauth_clients').where({ client_id: 'er_me' }).first())) {
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_me', grants: ['password'], profile: 'earthranger' });
  }
  const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_me', username, password }) });
  return String(((await response.json()) as Json).access_token);
}

/** The web app's permission check (hooks `usePermissions`): every action listed under the area. */
const can = (me: Json, area: string, ...actions: string[]) => actions.every((action) => (me.permissions[area] ?? []).includes(action));

t.test(`user/me and status as the web app reads them at start (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;

  await t.test('a superuser: Data Export and messages menus, role, date_joined, last_login', async (t) => {
    const token = await earthRangerToken(s);
    const me = (await s.json('/api/v1.0/user/me', { token })).body.data as Json;
    t.ok(can(me, 'event', 'export'), 'events export (Data Export menu)');
    t.ok(can(me, 'observation', 'export'), 'observations export');
    t.ok(can(me, 'message', 'add', 'view', 'change', 'delete'), 'messages menu');
    t.equal(me.role, '');
    t.match(me.date_joined, /^\d{4}-\d{2}-\d{2}T/);
    t.match(me.last_login, /^\d{4}-\d{2}-\d{2}T/, 'the newest token issued to the user');
    t.ok(Date.parse(me.last_login) >= Date.parse(me.date_joined));
  });

  await t.test('a user gets export and message only with their permissions', async (t) => {
    const plain = await userToken(s, 'plainviewer', ['view_event', 'view_observation']);
    const plainMe = (await s.json('/api/v1.0/user/me', { token: plain })).body.data as Json;
    t.notOk(can(plainMe, 'event', 'export'));
    t.notOk(can(plainMe, 'observation', 'export'));
    t.notOk('message' in plainMe.permissions);
    const analyst = await userToken(s, 'analyst', ['view_event', 'export_event', 'export_observation', 'view_message', 'add_message']);
    const me = (await s.json('/api/v1.0/user/me', { token: analyst })).body.data as Json;
    t.same(me.permissions.event, ['view', 'export']);
    t.same(me.permissions.observation, ['export'], 'export alone is enough for the area');
    t.same(me.permissions.message, ['add', 'view']);
    t.match(me.last_login, /^\d{4}-/);
  });

  await t.test('status: export_kml_enabled', async (t) => {
    const token = (await s.login()).access_token;
    const status = (await s.json('/api/v1.0/status', { token })).body as Json;
    t.equal(status.export_kml_enabled, true);
    t.equal(status.patrol_enabled, true);
  });

  await t.test('the stubs are gone: messages and featureset answer from their areas', async (t) => {
    const token = (await s.login()).access_token;
    t.same((await s.json('/api/v1.0/featureset', { token })).body, { features: [] });
    t.match((await s.json('/api/v1.0/messages', { token })).body, { count: 0, results: [] });
  });
});
