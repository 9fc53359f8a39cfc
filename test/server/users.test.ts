import t from 'tap';
import { dialect, jsonBody, startTestServer } from '../helpers/server.js';

t.test(`users API (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const adminToken = (await s.login()).access_token;

  await t.test('me: both spellings, with and without /api/v1.0 and trailing slash', async (t) => {
    for (const path of ['/users/me', '/user/me', '/users/me/', '/api/v1.0/user/me', '/api/v1.0/users/me/']) {
      const { status, body } = await s.json(path, { token: adminToken });
      t.equal(status, 200, path);
      t.same(body.status, { message: 'OK', code: 200 });
      t.equal(body.data.username, 'admin');
      t.match(body.data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
      for (const key of ['created_at', 'email', 'id', 'name', 'username', 'first_name', 'last_name', 'is_staff', 'is_superuser', 'permissions', 'subject']) t.ok(key in body.data, key);
      t.same(body.data.permissions.patrol, ['add', 'change', 'delete', 'view'], 'CONTRACT §11: the permission map');
    }
  });

  await t.test('create, then list and get', async (t) => {
    const created = await s.json('/users/', jsonBody({ username: 'ranger.one', password: 'Acacia-Dusk-42', email: 'one@example.org', first_name: 'Ann', last_name: 'Ranger', phone: '+254700000001' }, { token: adminToken }));
    t.equal(created.status, 201);
    t.same(created.body.status, { message: 'Created', code: 201 });
    t.equal(created.body.data.name, 'Ann Ranger');
    t.equal(created.body.data.email, 'one@example.org');
    const list = await s.json('/users/', { token: adminToken });
    t.equal(list.status, 200);
    t.same(list.body.data.map((u: { username: string }) => u.username), ['admin', 'ranger.one']);
    const one = await s.json(`/user/${created.body.data.id}`, { token: adminToken });
    t.equal(one.body.data.username, 'ranger.one');
    const missing = await s.json('/user/00000000-0000-4000-8000-000000000000', { token: adminToken });
    t.equal(missing.status, 404);
    const malformed = await s.json('/user/not-a-uuid', { token: adminToken });
    t.equal(malformed.status, 404, 'a malformed id is not found, not a 500');
    t.equal(malformed.body.status.code, 404);
  });

  await t.test('validation: every broken rule reported together, keyed by field', async (t) => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string[]>]> = [
      ['missing everything', {}, { username: ['required'], password: ['required'] }],
      ['username too long and bad characters', { username: 'x'.repeat(31) + '!', password: 'Good-Passphrase-9' }, { username: ['max_length', 'invalid'] }],
      ['username with space', { username: 'a b', password: 'Good-Passphrase-9' }, { username: ['invalid'] }],
      ['allowed punctuation', { username: 'a.b+c-d_e@f', password: 'Good-Passphrase-9' }, {}],
      ['names too long', { username: 'names', password: 'Good-Passphrase-9', first_name: 'f'.repeat(31), last_name: 'l'.repeat(31) }, { first_name: ['max_length'], last_name: ['max_length'] }],
      ['bad email', { username: 'mail1', password: 'Good-Passphrase-9', email: 'not-an-address' }, { email: ['invalid'] }],
      ['phone without plus', { username: 'phone1', password: 'Good-Passphrase-9', phone: '254700' }, { phone: ['invalid'] }],
      ['phone too long', { username: 'phone2', password: 'Good-Passphrase-9', phone: '+' + '1'.repeat(15) }, { phone: ['max_length'] }],
      ['phone with spaces', { username: 'phone3', password: 'Good-Passphrase-9', phone: '+254 700' }, { phone: ['invalid'] }],
      ['short password', { username: 'short1', password: 'Ab-3kq' }, { password: ['password_too_short'] }],
      ['numeric password', { username: 'num1', password: '918273645' }, { password: ['password_entirely_numeric'] }],
      ['common password (case-insensitive)', { username: 'common1', password: 'QwertyUIOP' }, { password: ['password_too_common'] }],
      ['common and numeric', { username: 'common2', password: '123456789' }, { password: ['password_too_common', 'password_entirely_numeric'] }],
      ['contains username', { username: 'kipchoge', password: 'xx-KIPCHOGE-xx' }, { password: ['password_too_similar'] }],
      ['contains names and email', { username: 'u7', password: 'mwangi.wanjiru@example.org!', first_name: 'Mwangi', last_name: 'Wanjiru', email: 'mwangi.wanjiru@example.org' }, { password: ['password_too_similar', 'password_too_similar', 'password_too_similar'] }],
      ['wrong types', { username: 12, password: ['x'] }, { username: ['invalid_type'], password: ['invalid_type'] }],
      ['duplicate username (case-insensitive)', { username: 'ADMIN', password: 'Good-Passphrase-9' }, { username: ['unique'] }],
    ];
    for (const [name, input, expected] of cases) {
      const { status, body } = await s.json('/users/', jsonBody(input, { token: adminToken }));
      if (Object.keys(expected).length === 0) {
        t.equal(status, 201, name);
        continue;
      }
      t.equal(status, 400, name);
      t.equal(body.status.code, 400, name);
      const got: Record<string, string[]> = {};
      for (const field of Object.keys(expected)) got[field] = (body[field] ?? []).map((issue: { code: string }) => issue.code);
      t.same(got, expected, name);
      for (const field of Object.keys(expected)) for (const issue of body[field]) t.ok(issue.message && Array.isArray(issue.hints), `${name}: entry shape`);
    }
  });

  await t.test('bad bodies are 4xx with the error body', async (t) => {
    const malformed = await s.json('/users/', { method: 'POST', token: adminToken, headers: { 'Content-Type': 'application/json' }, body: '{"username": ' });
    t.equal(malformed.status, 400);
    t.equal(malformed.body.body[0].code, 'parse_error');
    const array = await s.json('/users/', jsonBody([1, 2], { token: adminToken }));
    t.equal(array.status, 400);
    const form = await s.json('/users/', { method: 'POST', token: adminToken, body: new URLSearchParams({ username: 'x' }) });
    t.equal(form.status, 415);
    t.equal(form.body.status.code, 415);
    const huge = await s.json('/users/', jsonBody({ username: 'big', password: 'x'.repeat(1024 * 1024 + 10) }, { token: adminToken }));
    t.equal(huge.status, 413);
    t.equal(huge.body.status.message, 'Payload Too Large');
  });

  await t.test('permissions: 401 without credentials, 403 without the permission', async (t) => {
    await admin.createUser({ tenant: 'default', username: 'viewer', password: 'Quiet-Heron-Passphrase-1', permissions: [] });
    const viewer = (await s.login('viewer', 'Quiet-Heron-Passphrase-1')).access_token;
    const anonymous = await s.request('/users/');
    t.equal(anonymous.status, 401);
    t.match(anonymous.headers.get('www-authenticate'), /^Bearer/);
    t.equal((await s.json('/users/', { token: viewer })).status, 403);
    t.equal((await s.json('/users/', jsonBody({ username: 'nope', password: 'Good-Passphrase-9' }, { token: viewer }))).status, 403);
    t.equal((await s.json('/users/me', { token: viewer })).body.data.username, 'viewer', 'anyone may read themself');
    await admin.grant('viewer', ['view_user']);
    t.equal((await s.json('/users/', { token: viewer })).status, 200, 'a granted permission applies at once');
  });

  await t.test('tenant isolation: another tenant\'s user is 404, lists are per tenant', async (t) => {
    await admin.createTenant('north');
    const outsider = await admin.createUser({ tenant: 'north', username: 'north.admin', password: 'North-Passphrase-1', superuser: true });
    const northToken = (await s.login('north.admin', 'North-Passphrase-1')).access_token;
    const fromDefault = await s.json(`/user/${outsider.id}`, { token: adminToken });
    t.equal(fromDefault.status, 404);
    const list = await s.json('/users/', { token: northToken });
    t.same(list.body.data.map((u: { username: string }) => u.username), ['north.admin']);
    const adminId = (await s.json('/users/me', { token: adminToken })).body.data.id;
    t.equal((await s.json(`/user/${adminId}`, { token: northToken })).status, 404);
    const created = await s.json('/users/', jsonBody({ username: 'north.ranger', password: 'North-Ranger-Pass-2' }, { token: northToken }));
    t.equal(created.status, 201);
    t.notOk((await s.json('/users/', { token: adminToken })).body.data.some((u: { username: string }) => u.username === 'north.ranger'));
  });

  await t.test('User-Profile: act as a listed profile, 403 otherwise', async (t) => {
    const profile = await admin.createUser({ tenant: 'default', username: 'team.profile', password: 'Team-Profile-Pass-3', permissions: ['view_user'] });
    await admin.createUser({ tenant: 'default', username: 'field.user', password: 'Field-User-Pass-4' });
    await admin.addProfile('field.user', 'team.profile');
    const token = (await s.login('field.user', 'Field-User-Pass-4')).access_token;
    t.equal((await s.json('/users/', { token })).status, 403, 'the user alone lacks view_user');
    const asProfile = await s.json('/users/', { token, headers: { 'User-Profile': profile.id } });
    t.equal(asProfile.status, 200, "the profile's permissions apply");
    t.equal((await s.json('/users/me', { token, headers: { 'User-Profile': profile.id } })).body.data.username, 'team.profile');
    const adminId = (await s.json('/users/me', { token: adminToken })).body.data.id;
    t.equal((await s.json('/users/me', { token, headers: { 'User-Profile': adminId } })).status, 403, 'not a listed profile');
    t.equal((await s.json('/users/me', { token, headers: { 'User-Profile': 'garbage' } })).status, 403);
  });
});
