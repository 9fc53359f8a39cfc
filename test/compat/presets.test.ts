import t from 'tap';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';
import { openDatabase } from '../../server/db/knex.js';

t.test(`admin create-client --preset/--profile and set-client-profile on the real binary (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location };
  const admin = (...args: string[]) => runCli(['admin', ...args], { env });
  t.equal((await admin('create-tenant', '--name', 'north', '--create')).code, 0);

  const web = await admin('create-client', '--tenant', 'north', '--preset', 'web-app');
  t.equal(web.code, 0, web.stderr);
  t.match(web.stdout, /created public client das_web_client \(grants: password, refresh_token\), profile: earthranger/);
  const mobile = await admin('create-client', '--tenant', 'north', '--preset', 'mobile-app');
  t.match(mobile.stdout, /created public client er_mobile_tracker \(grants: password, refresh_token\), profile: earthranger/);
  const plain = await admin('create-client', '--tenant', 'north', '--client-id', 'plain');
  t.match(plain.stdout, /profile: default/);
  const explicit = await admin('create-client', '--tenant', 'north', '--client-id', 'er', '--profile', 'earthranger');
  t.match(explicit.stdout, /profile: earthranger/);

  const badPreset = await admin('create-client', '--tenant', 'north', '--preset', 'tv-app');
  t.equal(badPreset.code, 2);
  t.match(badPreset.stderr, /error: unknown preset "tv-app"\nhint: Presets: web-app, mobile-app/);
  const noId = await admin('create-client', '--tenant', 'north');
  t.equal(noId.code, 2);
  t.match(noId.stderr, /needs --client-id or --preset/);
  const badProfile = await admin('create-client', '--tenant', 'north', '--client-id', 'x', '--profile', 'django');
  t.equal(badProfile.code, 1);
  t.match(badProfile.stderr, /Unknown response profile "django"/);

  const changed = await admin('set-client-profile', '--client-id', 'plain', '--profile', 'earthranger');
  t.equal(changed.code, 0, changed.stderr);
  t.match(changed.stdout, /client plain now answers in the earthranger profile/);
  t.equal((await admin('set-client-profile', '--client-id', 'das_web_client', '--profile', 'default')).code, 0);
  t.equal((await admin('set-client-profile', '--client-id', 'ghost', '--profile', 'fieldops')).code, 1);

  const database = openDatabase(db.config);
  t.teardown(() => database.close());
  const rows = await database.knex('oauth_clients').select('client_id', 'api_profile', 'secret_hash').orderBy('client_id');
  t.same(
    rows.map((row: { client_id: string; api_profile: string | null }) => [row.client_id, row.api_profile]),
    // fieldops-cli: set up by --create, as by the first start of `serve`.
    [['das_web_client', null], ['er', 'earthranger'], ['er_mobile_tracker', 'earthranger'], ['fieldops-cli', 'fieldops'], ['plain', 'earthranger']],
  );
  t.ok(rows.every((row: { secret_hash: string | null }) => row.secret_hash === null), 'the presets are public clients');
});
