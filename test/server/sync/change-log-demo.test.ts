import path from 'node:path';
import t from 'tap';
import { RECORD_KINDS } from '../../../protocol/sync.js';
import { backfillDone } from '../../../server/db/sync/tenant-state.js';
import { loadDemoData } from '../../../server/domain/demo.js';
import { packageRoot } from '../../../server/domain/users/common-passwords.js';
import { dialect, startTestServer } from '../../helpers/server.js';
import { recount } from './change-log-support.js';

/**
 * Through the real services (the demo loader writes every kind): every record written is in the
 * log, once the writes committed, and the scope sums are exactly what the memberships add up to.
 */
t.test(`the demo tenant's writes leave every record logged and the sums exact (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { services, admin, database, store } = s.server.runtime;
  await loadDemoData({ services, admin }, path.join(packageRoot(), 'fixtures/demo'));
  const tenant = (await database.knex('tenants').first('id')) as { id: string };
  t.ok(await backfillDone(database.knex, tenant.id), 'a tenant created with the log is ready at once');
  for (const kind of RECORD_KINDS) {
    const step = await store.repos.sync.unlogged(tenant.id, kind, null, 10_000);
    t.same([step.ids, step.done], [[], true], `every ${kind} is in the log`);
  }
  const changes = Number((await database.knex('sync_changes').where({ tenant_id: tenant.id }).count({ n: '*' }).first())!.n);
  t.ok(changes > 20, `the demo's writes were logged (${changes} changes)`);
  const { counted, stored, badHashes } = await recount(database, tenant.id);
  t.same(stored, counted, 'sums equal a recount from the memberships');
  t.equal(badHashes, 0);
});
