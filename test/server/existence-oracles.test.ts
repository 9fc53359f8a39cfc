import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';

// Issue 13 item 12 (users): `/user/<id>` answers the same whether or not the user exists, in
// this tenant or another, so it is no oracle for ids.
t.test(`/user/<id> without view_user: one answer for every other id (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const admin = s.server.runtime.admin;
  const adminToken = (await s.login()).access_token;
  await admin.createUser({ tenant: 'default', username: 'oracle.plain', password: 'Gerenuk-Pass-6', permissions: [] });
  await admin.createUser({ tenant: 'default', username: 'oracle.viewer', password: 'Gerenuk-Pass-7', permissions: ['view_user'] });
  await admin.createTenant('oracle-other');
  const outsider = await admin.createUser({ tenant: 'oracle-other', username: 'oracle.outsider', password: 'Gerenuk-Pass-8', permissions: [] });
  const plain = (await s.login('oracle.plain', 'Gerenuk-Pass-6')).access_token;
  const viewer = (await s.login('oracle.viewer', 'Gerenuk-Pass-7')).access_token;
  const adminId = (await s.json('/users/me', { token: adminToken })).body.data.id as string;
  const plainId = (await s.json('/users/me', { token: plain })).body.data.id as string;
  const ids = { 'an existing user of the tenant': adminId, 'a user of another tenant': outsider.id, 'no such user': '00000000-0000-4000-8000-000000000000', 'not an id': 'not-a-uuid' };

  const answers = new Set<string>();
  for (const [label, id] of Object.entries(ids)) {
    for (const prefix of ['', '/api/v1.0']) {
      const response = await s.json(`${prefix}/user/${id}`, { token: plain });
      answers.add(`${response.status} ${JSON.stringify(response.body)}`);
      t.equal(response.status, 403, `without view_user, ${label}: 403`);
    }
  }
  t.equal(answers.size, 1, 'the very same answer (status and body) for all of them');
  t.equal((await s.json(`/user/${plainId}`, { token: plain })).status, 200, 'oneself is always readable');
  t.equal((await s.json(`/user/${plainId.toUpperCase()}`, { token: plain })).status, 200, 'whatever the case of the id');

  t.equal((await s.json(`/user/${adminId}`, { token: viewer })).status, 200, 'with view_user: an existing user of the tenant');
  t.equal((await s.json(`/user/${outsider.id}`, { token: viewer })).status, 404, 'with view_user: another tenant\'s user is 404...');
  t.equal((await s.json('/user/00000000-0000-4000-8000-000000000000', { token: viewer })).status, 404, '...exactly as no user at all');
});
