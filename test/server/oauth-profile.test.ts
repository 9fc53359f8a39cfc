import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { oauth, oauthClient } from '../helpers/oauth.js';

/**
 * Issue 13 item 8: a profile acts only inside its parent's session (CONTRACT §2). The old
 * /oauth2/authorize issued the code to the profile named by User-Profile, whose exchange gave
 * the profile an independent token family (it survived the parent's logout and revocation).
 * User-Profile is now refused (400 invalid_request) at the authorize and token endpoints.
 */
t.test(`User-Profile never yields a code or token family of its own (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  await admin.createUser({ tenant: 'default', username: 'parent.user', password: 'Parent-Session-Pass-4', permissions: ['view_user'] });
  const profile = await admin.createUser({ tenant: 'default', username: 'team.profile', password: 'Team-Profile-Pass-5', permissions: ['view_user'] });
  await admin.addProfile('parent.user', 'team.profile');
  const parent = await s.login('parent.user', 'Parent-Session-Pass-4');
  const redirect = 'http://127.0.0.1:41100/callback';
  const authorize = (headers: Record<string, string>) =>
    s.json(`/oauth2/authorize/?${new URLSearchParams({ response_type: 'code', client_id: 'fieldops-cli', redirect_uri: redirect })}`, { token: parent.access_token, headers });

  const refused = await authorize({ 'User-Profile': profile.id });
  t.equal(refused.status, 400, 'authorize with User-Profile is refused');
  t.equal(refused.body.error, 'invalid_request');
  t.match(refused.body.error_description, /User-Profile/);
  t.equal(refused.headers.get('location'), null, 'and redirects nowhere');
  const codes = await s.server.runtime.database.knex('oauth_authorization_codes').where({ user_id: profile.id });
  t.same(codes, [], 'no code was stored for the profile');

  const token = await s.json('/oauth2/token/', {
    method: 'POST',
    headers: { 'User-Profile': profile.id },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'parent.user', password: 'Parent-Session-Pass-4' }),
  });
  t.equal(token.status, 400, 'the token endpoint refuses User-Profile too');
  t.equal(token.body.error, 'invalid_request');

  // Without the header: the code is the parent's, and the profile is reached inside that session.
  const location = (await authorize({})).headers.get('location')!;
  const issued = await oauthClient(s.url).exchange(location, redirect, oauth.nopkce);
  t.equal((await s.json('/users/me', { token: issued.access_token })).body.data.username, 'parent.user', 'the code is issued to the parent');
  const asProfile = await s.json('/users/me', { token: issued.access_token, headers: { 'User-Profile': profile.id } });
  t.equal(asProfile.body.data.username, 'team.profile', "the profile still acts inside the parent's session");
  await oauthClient(s.url).revoke(issued.refresh_token!);
  t.equal((await s.json('/users/me', { token: issued.access_token, headers: { 'User-Profile': profile.id } })).status, 401, "and ends with the parent's session");
});
