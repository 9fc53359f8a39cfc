/**
 * One identity per entry (issue 26 item 7), with the real CLI against a real server (both
 * databases): on a shared laptop, a record made offline by one user is never sent by the next,
 * the next user sees nothing the previous one pulled, logout says what happens to unsent
 * records (--keep, --discard, --wipe), and every request carries the mirror's client id.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import t from 'tap';
import { cliEnv } from '../helpers/cli-env.js';
import { send } from '../helpers/catalog.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { EVENTS } from '../sync/offline-fixtures.js';

const BOB_PASSWORD = 'Baobab-Dry-Season-4';
const details = JSON.stringify({ notes: 'two bulls at the waterhole', species: 'elephant' });

t.test('a shared laptop: entries held for their users, nothing pulled shown to the next', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const pulledEvent = await s.json(EVENTS, send('POST', { event_type: 'wildlife_sighting', title: 'seen by headquarters', event_details: { notes: 'hq', species: 'lion' } }, token));
  t.equal(pulledEvent.status, 201, JSON.stringify(pulledEvent.body));
  const pulledId: string = pulledEvent.body.data?.id ?? pulledEvent.body.id;
  // bob: a user with no permission at all (no view_event).
  const bob = await s.json('/users/', send('POST', { username: 'bob', password: BOB_PASSWORD }, token));
  t.equal(bob.status, 201, JSON.stringify(bob.body));

  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(s.url)).code, 0);
  t.equal((await cli.run(['sync'])).code, 0, 'the first sync makes the mirror');
  const pull = await cli.run(['pull']);
  t.equal(pull.code, 0, pull.stderr);
  t.ok((await cli.json(['events', 'list'])).body.some((e: { id: string }) => e.id === pulledId), 'admin pulled the headquarters event');
  const adminMe = (await cli.json(['whoami'])).body;

  // admin records an event offline, then tries to log out.
  const recorded = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', details]);
  t.equal(recorded.code, 0, recorded.stderr);
  const entryId: string = recorded.body.id;
  const entry = (await cli.json(['outbox'])).body.entries.find((e: { id: string }) => e.id === entryId);
  t.match(entry, { username: 'admin', user_id: adminMe.id, server: s.url }, 'the entry records who made it, for which server');

  const refused = await cli.run(['logout']);
  t.equal(refused.code, 2, 'logout with unsent records of mine is refused');
  t.match(refused.stderr, /^error: 1 record you made offline is not sent \(recorded by admin\); still logged in$/m);
  t.match(refused.stderr, /^hint: .*`fieldops push`.*--keep.*--discard/m);
  t.equal((await cli.json(['whoami'])).code, 0, 'still logged in');
  const kept = await cli.json(['logout', '--keep']);
  t.equal(kept.code, 0, kept.stderr);
  t.match(kept.body, { logged_out: true, kept: 1, discarded: 0, wiped: false });
  const nobody = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', details]);
  t.equal(nobody.code, 1, 'nothing is recorded while nobody is logged in');
  t.match(nobody.stderr, /error: log in first: an entry records who made it/);

  // bob logs in on the same laptop: nothing admin pulled is his to see.
  const bobLogin = await cli.login(s.url, 'bob', BOB_PASSWORD);
  t.equal(bobLogin.code, 0, bobLogin.stderr);
  t.match(bobLogin.stderr, /the mirror held records pulled for admin .*: deleted/);
  t.match(bobLogin.stderr, /1 record was recorded offline by other users on this laptop: they stay queued for them/);
  const bobList = (await cli.json(['events', 'list'])).body as Array<{ id: string; origin: string }>;
  t.same(bobList, [], 'no pulled event is shown to bob, nor admin\'s queued one');
  t.notOk(bobList.some((e) => e.id === pulledId), 'the headquarters event is gone from the laptop');
  t.same((await cli.json(['patrols', 'list'])).body.filter((p: { origin: string }) => p.origin === 'server'), []);
  const db = new Database(cli.mirror, { readonly: true });
  for (const table of ['pulled_events', 'pulled_patrols', 'pulled_subjects', 'event_types', 'choices', 'documents', 'checkpoints', 'pull_checkpoints']) {
    t.equal((db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n, 0, `${table} emptied for bob`);
  }
  const clientId = (db.prepare(`select value from mirror_identity where key = 'client_id'`).get() as { value: string }).value;
  db.close();

  const bobPush = await cli.json(['push']);
  t.equal(bobPush.code, 1, 'bob\'s push refuses admin\'s entry');
  t.match(bobPush.stderr, /^error: 1 entry was recorded by admin$/m);
  t.match(bobPush.stderr, /^hint: log in as admin \(fieldops login --username admin\) to send them, or drop them \(fieldops outbox drop <id>\)$/m);
  t.match(bobPush.body, { total: 0, sent: 0, held_for_others: [{ id: entryId, username: 'admin' }] });
  t.equal((await s.json(`/api/v1.0/activity/event/${entryId}`, { token })).status, 404, 'nothing stored on the server as bob');
  const bobSync = await cli.run(['sync']);
  t.notMatch(bobSync.stdout + bobSync.stderr, /sent|pushed/i, 'a sync as bob does not send it either');
  t.match(bobSync.stderr, /1 entry was recorded by admin: they stay queued for them \(log in as admin/, 'and says why it stays');
  t.equal((await s.json(`/api/v1.0/activity/event/${entryId}`, { token })).status, 404);
  t.equal((await cli.json(['outbox'])).body.entries.find((e: { id: string }) => e.id === entryId)?.status, 'pending', 'still pending, held for admin');
  t.equal((await cli.run(['logout'])).code, 0, 'bob has nothing unsent: he logs out plainly');

  // admin comes back and sends it: stored as reported by admin.
  t.equal((await cli.login(s.url)).code, 0);
  const push = await cli.json(['push']);
  t.equal(push.code, 0, push.stderr);
  t.match(push.body, { total: 1, sent: 1, held_for_others: [] });
  const stored = await s.json(`/api/v1.0/activity/event/${entryId}`, { token });
  t.equal(stored.status, 200);
  t.match(stored.body.data ?? stored.body, { reported_by: { id: adminMe.id } }, 'reported by the user who recorded it');

  // --discard drops the unsent record, with the reason kept. (bob's login emptied the catalogs: synced again.)
  t.equal((await cli.run(['sync'])).code, 0);
  const second = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', details]);
  t.equal(second.code, 0, second.stderr);
  const discarded = await cli.json(['logout', '--discard']);
  t.equal(discarded.code, 0, discarded.stderr);
  t.match(discarded.body, { discarded: 1, kept: 0 });
  const dropped = (await cli.json(['outbox', '--all'])).body.entries.find((e: { id: string }) => e.id === second.body.id);
  t.match(dropped, { status: 'dropped', reason: /discarded at the logout of admin/ });

  // --wipe deletes the mirror; with anyone's unsent records only with --discard.
  const sameUser = await cli.login(s.url);
  t.equal(sameUser.code, 0);
  t.notMatch(sameUser.stderr, /held records pulled/, 'the same user logging in again keeps what was pulled');
  t.equal((await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', details])).code, 0);
  const wipeRefused = await cli.run(['logout', '--wipe']);
  t.equal(wipeRefused.code, 2, wipeRefused.stderr);
  t.match(wipeRefused.stderr, /error: the mirror holds 1 record not sent \(recorded by admin\); --wipe would delete them\nhint: .*--discard/);
  t.ok(fs.existsSync(cli.mirror));
  const wiped = await cli.json(['logout', '--wipe', '--discard']);
  t.equal(wiped.code, 0, wiped.stderr);
  t.match(wiped.body, { wiped: true, logged_out: true });
  for (const suffix of ['', '-wal', '-shm', '.files', '.push.lock']) t.notOk(fs.existsSync(cli.mirror + suffix), `${cli.mirror}${suffix} is gone`);

  // The client id: on the server's request log for every request once the mirror existed, one value.
  const logged = s
    .logs()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as { clientId?: string; path: string });
  const withId = logged.filter((line) => line.clientId);
  t.ok(withId.length >= 10, `requests carried the client id (${withId.length})`);
  t.same([...new Set(withId.map((line) => line.clientId))], [clientId], 'one client id, the mirror\'s, across commands and users');
  t.ok(withId.some((line) => line.path === '/oauth2/token/'), 'logins carry it too');
  t.ok(withId.some((line) => line.path.startsWith('/oauth2/revoke_token')), 'and logouts');
});

t.test('the server logs only a sane client id', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  await s.request('/users/me', { headers: { 'Fieldops-Client-Id': 'laptop-7.alpha_1' } });
  await s.request('/users/me', { headers: { 'Fieldops-Client-Id': 'x'.repeat(65) } });
  await s.request('/users/me', { headers: { 'Fieldops-Client-Id': 'bad id;' } });
  const ids = s
    .logs()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => (JSON.parse(line) as { clientId?: string }).clientId ?? null);
  t.same(ids, ['laptop-7.alpha_1', null, null]);
});

t.test('the migration gives old entries what the mirror knew; adoption keeps or clears the pulled set', async (t) => {
  const knexFactory = (await import('knex')).default;
  const { mirrorMigrations } = await import('../../migrations/mirror/index.js');
  const { adoptIdentity, readMirrorIdentity } = await import('../../sync/mirror/identity.js');
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
  t.teardown(() => knex.destroy());
  const index = mirrorMigrations.findIndex((m) => m.name === '20261127_0101_identity');
  for (const { migration } of mirrorMigrations.slice(0, index)) await migration.up(knex);
  await knex('feed_state').insert({ key: 'identity', value: 'https://hq.example alice' });
  await knex('outbox').insert({ id: '00000000-0000-4000-8000-000000000001', kind: 'event.create', body: '{}', recorded_at: '2026-11-20T00:00:00Z' });
  await knex('pulled_events').insert({ id: 'e1', record: '{}' });
  await mirrorMigrations[index]!.migration.up(knex);
  t.match(await knex('outbox').first(), { server: 'https://hq.example', username: 'alice', user_id: null }, 'filled from the feed\'s identity');
  const first = await readMirrorIdentity(knex);
  t.match(first, { clientId: /^[0-9a-f-]{36}$/, user: null, signedOut: false });

  const same = await adoptIdentity(knex, { server: 'https://hq.example', userId: 'u-alice', username: 'alice' });
  t.same(same, { previous: { server: 'https://hq.example', userId: null, username: 'alice' }, reset: false }, 'the same user keeps what was pulled');
  t.equal((await knex('pulled_events').count({ n: '*' }))[0]!.n, 1);
  t.equal((await knex('outbox').first()).user_id, 'u-alice', 'her old entry now carries her id');
  const other = await adoptIdentity(knex, { server: 'https://hq.example', userId: 'u-bob', username: 'bob' });
  t.equal(other.reset, true);
  t.equal((await knex('pulled_events').count({ n: '*' }))[0]!.n, 0, 'another user: the pulled set is emptied');
  t.equal((await knex('outbox').count({ n: '*' }))[0]!.n, 1, 'the outbox stays');
  t.equal((await readMirrorIdentity(knex)).clientId, first.clientId, 'the client id belongs to the mirror, not the user');
});
