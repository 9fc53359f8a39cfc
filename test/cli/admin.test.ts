import t from 'tap';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';
import { openDatabase } from '../../server/db/knex.js';

t.test(`fieldops admin commands on the real binary (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_ADMIN_PASSWORD: 'Baobab-Shade-Seventy-7' };
  const admin = (...args: string[]) => runCli(['admin', ...args], { env });

  // A new database is set up only when asked (issue 24): as the first start of `serve` does.
  const tenant = await admin('create-tenant', '--name', 'north', '--create');
  t.equal(tenant.code, 0, tenant.stderr);
  t.match(tenant.stderr, /^created the database: tenant "default", superuser "admin"/m);
  t.match(tenant.stdout, /created tenant north/);
  const again = await admin('create-tenant', '--name', 'north');
  t.equal(again.code, 1);
  t.match(again.stderr, /already exists/);
  t.equal((await admin('create-tenant', '--name', 'bad name!')).code, 1);

  const user = await admin('create-user', '--tenant', 'north', '--username', 'ranger', '--password', 'Baobab-Shade-77', '--email', 'r@example.org', '--first-name', 'Rhoda', '--phone', '+254711000000', '--permission', 'view_user', '--permission', 'add_user');
  t.equal(user.code, 0, user.stderr);
  t.match(user.stdout, /created user ranger \([0-9a-f-]{36}\)/);

  const weak = await admin('create-user', '--tenant', 'north', '--username', 'weak', '--password', '12345', '--phone', '0711');
  t.equal(weak.code, 1, 'same rules as the API');
  t.match(weak.stderr, /password: This password is too short/);
  t.match(weak.stderr, /password: This password is entirely numeric/);
  t.match(weak.stderr, /phone: Enter a phone number/);

  const noTenant = await admin('create-user', '--tenant', 'south', '--username', 'x1', '--password', 'Baobab-Shade-77');
  t.equal(noTenant.code, 1);
  t.match(noTenant.stderr, /No tenant "south"/);
  t.equal((await admin('create-user', '--tenant', 'north', '--username', 'p1', '--password', 'Baobab-Shade-77', '--permission', 'fly_plane')).code, 1, 'unknown permission');
  const usage = await admin('create-user', '--tenant', 'north');
  t.equal(usage.code, 2, 'a missing required option is a usage error');

  const client = await admin('create-client', '--tenant', 'north', '--client-id', 'gateway', '--secret', 'gateway-secret-abcdefgh', '--grant', 'password', '--grant', 'refresh_token');
  t.equal(client.code, 0, client.stderr);
  t.match(client.stdout, /created confidential client gateway \(grants: password, refresh_token\)/);
  t.equal((await admin('create-client', '--tenant', 'north', '--client-id', 'web', '--grant', 'authorization_code')).code, 1, 'code grant needs a redirect URI');
  t.equal((await admin('create-client', '--tenant', 'north', '--client-id', 'web', '--grant', 'implicit')).code, 1);
  t.equal((await admin('create-client', '--tenant', 'north', '--client-id', 'web', '--secret', 'short')).code, 1);
  const web = await admin('create-client', '--tenant', 'north', '--client-id', 'web', '--grant', 'authorization_code', '--redirect-uri', 'https://app.example/cb');
  t.equal(web.code, 0, web.stderr);

  const grant = await admin('grant', '--username', 'ranger', '--permission', 'view_patrol', 'add_patrol');
  t.equal(grant.code, 0, grant.stderr);
  t.equal((await admin('grant', '--username', 'ghost', '--permission', 'view_patrol')).code, 1);

  const database = openDatabase(db.config);
  t.teardown(() => database.close());
  const perms = await database.knex('user_permissions').join('users', 'users.id', 'user_permissions.user_id').where('users.username', 'ranger').pluck('codename');
  t.same([...perms].sort(), ['add_patrol', 'add_user', 'view_patrol', 'view_user']);
  const stored = await database.knex('users').where({ username: 'ranger' }).first();
  t.equal(stored.email, 'r@example.org');
  t.equal(stored.first_name, 'Rhoda');
  t.match(stored.password_hash, /^scrypt\$/);

  // Issue 24: each command names its database first, has --json, and says how to fix a miss.
  t.equal(grant.stderr, `using database: ${db.location}\n`, 'the database used, on stderr');
  t.match(noTenant.stderr, /^hint: create it with: fieldops admin create-tenant --name south/m);
  t.match((await admin('grant', '--username', 'ghost', '--permission', 'view_patrol')).stderr, /^error: No user "ghost"\.\nhint: .*using database/m);
  const json = async (...args: string[]) => {
    const result = await runCli(['admin', ...args, '--json'], { env, input: 'Baobab-Shade-77\n' });
    t.equal(result.code, 0, `${args[0]} --json: ${result.stderr}`);
    const body = JSON.parse(result.stdout);
    t.equal(body.database, db.location, `${args[0]} --json names the database`);
    return body;
  };
  t.match(await json('create-tenant', '--name', 'east'), { tenant: { name: 'east', id: /^[0-9a-f-]{36}$/ } });
  t.match(await json('create-user', '--tenant', 'north', '--username', 'eve', '--password-stdin', '--permission', 'view_user'), { user: { username: 'eve', tenant: 'north', superuser: false, permissions: ['view_user'] } });
  t.match(await json('create-client', '--tenant', 'east', '--client-id', 'east-app'), { client: { clientId: 'east-app', confidential: false, grants: ['password', 'refresh_token'] } });
  t.match(await json('set-client-profile', '--client-id', 'east-app', '--profile', 'earthranger'), { client: { clientId: 'east-app', profile: 'earthranger' } });
  t.match(await json('set-map', '--tenant', 'east', '--name', 'East', '--center', '36.8,-1.3', '--zoom', '9'), { tenant: 'east', map: { name: 'East', center: [36.8, -1.3], zoom: 9 } });
  t.match(await json('grant', '--username', 'eve', '--permission', 'view_patrol'), { username: 'eve', granted: ['view_patrol'] });
  t.match(await json('set-password', '--username', 'eve', '--password-stdin'), { username: 'eve', sessionsRevoked: true, failedLogins: 0 });
  t.match(await json('add-profile', '--username', 'ranger', '--profile', 'eve'), { username: 'ranger', profile: 'eve' });
  t.match(await json('unlock', '--username', 'eve'), { cleared: [{ username: 'eve', failures: 0 }] });

  const help = await runCli(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Exit codes:/);
  t.equal((await runCli(['no-such-command'])).code, 2);
});
