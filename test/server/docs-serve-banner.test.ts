import t from 'tap';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';

/** `fieldops serve` starts with a one-screen summary: where everything is. */
t.test(`fieldops serve prints a summary with the docs and metrics URLs (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const location = db.config.dialect === 'postgres' ? db.location.replace('postgres://postgres@', 'postgres://postgres:secret-pw@') : db.location;
  const serve = serveProcess({ DATABASE_URL: location, FIELDOPS_DATA_DIR: db.dataDir, FIELDOPS_METRICS_TOKEN: 'scrape-token-0123456789', FIELDOPS_PATROL_SWEEP_SECONDS: '0' });
  const url = await serve.url;
  t.teardown(() => void serve.child.kill('SIGTERM'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const banner = serve.output();
  t.match(banner, `listening on ${url}`);
  t.match(banner, /admin password \(shown only this once\): \S+/);
  t.match(banner, new RegExp(`API docs: +${url}/api/docs +\\(OpenAPI 3\\.1: ${url}/api/openapi\\.json\\)`));
  t.match(banner, new RegExp(`metrics: +${url}/metrics +\\(bearer FIELDOPS_METRICS_TOKEN, or a user with view_metrics\\)`));
  t.match(banner, new RegExp(`readiness: ${url}/readyz \\(ready\\)`));
  t.match(banner, /data dir: +\S+/);
  if (db.config.dialect === 'postgres') {
    t.notMatch(banner, /secret-pw/, 'the database password is not shown');
    t.match(banner, /database: +postgres postgres:\/\/postgres:\*\*\*@/);
  } else {
    t.match(banner, /database: +sqlite \S+/);
  }
  serve.child.kill('SIGTERM');
  t.equal(await serve.exited, 0);
  t.match(serve.output(), /shutting down/);
});
