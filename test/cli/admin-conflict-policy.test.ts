/**
 * Issue 26 §3: `fieldops admin conflict-policy <tenant> [hold|server-wins|last-writer-wins]`
 * shows or sets what a same-field conflict does in a tenant. The real binary, on a real database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';

t.test(`admin conflict-policy (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-policy-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn', FIELDOPS_ADMIN_PASSWORD: 'Baobab-Shade-Seventy-7' };
  const admin = (args: string[]) => runCli(['admin', ...args], { env });

  t.equal((await admin(['create-tenant', '--name', 'north', '--create'])).code, 0);
  t.match((await admin(['conflict-policy', 'north'])).stdout, /conflict policy hold/, 'hold by default');
  const set = await admin(['conflict-policy', 'north', 'last-writer-wins']);
  t.equal(set.code, 0, set.stderr);
  t.match(set.stdout, /now settles conflicts with last-writer-wins/);
  t.match(JSON.parse((await admin(['conflict-policy', 'north', '--json'])).stdout), { tenant: 'north', conflictPolicy: 'last_writer_wins' }, 'read back from the database, as the API names it');
  t.match((await admin(['conflict-policy', 'default'])).stdout, /conflict policy hold/, 'other tenants keep theirs');
  const bad = await admin(['conflict-policy', 'north', 'sometimes']);
  t.not(bad.code, 0, 'an unknown policy is refused');
  t.match(bad.stderr, /Unknown conflict policy "sometimes"[\s\S]*hint: Use hold, server-wins or last-writer-wins/);
  t.match((await admin(['conflict-policy', 'nowhere', 'hold'])).stderr, /No tenant "nowhere"/);
});
