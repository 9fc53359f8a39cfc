/**
 * Issue 24 item 8: a generated admin password that cannot be kept (FIELDOPS_ADMIN_PASSWORD_FILE
 * failing after the start-up check, e.g. a full disk) rolls the first-start set-up back: no
 * admin with a password nobody knows is left to block the next start, and the password is not
 * returned for printing. The file system is the process boundary faked here; the database is real.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../server/config.js';
import { bootstrapEmptyDatabase } from '../../server/domain/bootstrap.js';
import { createLogger } from '../../server/logger.js';
import { openRuntime } from '../../server/main.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';

t.test(`a generated password that cannot be kept leaves nothing behind (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bootstrap-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ FIELDOPS_DATA_DIR: dataDir, FIELDOPS_PASSWORD_HASH_COST: '4096' }, { database: db.location });
  const runtime = await openRuntime(config, { logger: createLogger('warn') });
  t.teardown(() => runtime.close());
  const deps = { store: runtime.store, users: runtime.services.users, clock: runtime.clock };
  const { knex } = runtime.database;
  const count = async (table: string) => Number((await knex(table).count({ n: '*' }))[0]!.n);

  const failure = new Error('ENOSPC: no space left on device');
  await t.rejects(bootstrapEmptyDatabase(deps, { adminPassword: null, keepGeneratedPassword: () => { throw failure; } }), failure, 'the failure is the error');
  t.equal(await count('tenants'), 0, 'no tenant');
  t.equal(await count('users'), 0, 'no admin with an unknown password');
  t.equal(await count('oauth_clients'), 0, 'no client');

  let kept = '';
  const result = await bootstrapEmptyDatabase(deps, { adminPassword: null, keepGeneratedPassword: (password) => void (kept = password) });
  t.same(result, { initialised: true, generatedAdminPassword: null, passwordKept: true }, 'the next start sets up; the kept password is not returned for printing');
  t.ok(kept.length >= 16);
  const admin = await runtime.store.repos.users.findByUsername('admin');
  t.ok(admin, 'the admin exists now');

  const printed = await bootstrapEmptyDatabase(deps, { adminPassword: null });
  t.same(printed, { initialised: false, generatedAdminPassword: null, passwordKept: false }, 'an initialised database is left alone');
});
