import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger } from '../../server/logger.js';
import { dialect, openTestDatabase } from '../helpers/database.js';

/**
 * Issue 24, finding 4: an unhandled database failure was logged with knex's message, the whole
 * statement with its bound values (the tenant id among them). What reaches the log now is the
 * driver's message, code and stack frames; no statement text, no bound value.
 */
t.test(`a failed statement's text and values stay out of errors and logs (${dialect})`, async (t) => {
  const database = await openTestDatabase(t);
  if (!database) return;
  await database.knex.schema.createTable('things', (table) => {
    table.string('tenant_id').notNullable();
    table.integer('n').notNullable();
  });
  const tenant = 'tenant-7f3a9c-secretish';
  const failures: Error[] = [];
  // A type the column refuses (PostgreSQL) and a missing column (both): two driver errors.
  for (const attempt of [
    () => database.knex('things').where({ tenant_id: tenant }).select('no_such_column'),
    () => database.knex('things').insert({ tenant_id: tenant, n: dialect === 'postgres' ? 'not a number' : null }),
  ]) {
    try {
      await attempt();
      t.fail('the statement should fail');
    } catch (error) {
      failures.push(error as Error);
    }
  }
  let logged = '';
  const logger = createLogger('info', new Writable({ write: (chunk, _encoding, done) => ((logged += chunk), done()) }));
  for (const error of failures) {
    t.notMatch(error.message, /select |insert into/i, `no statement in the message: ${error.message}`);
    t.notMatch(error.stack ?? '', /select|insert into/i, 'nor in the stack');
    t.ok((error as { code?: unknown }).code, 'the driver\'s code is kept');
    logger.error({ err: error }, 'unhandled error');
  }
  t.equal(logged.trim().split('\n').length, 2, 'both logged');
  t.notMatch(logged, tenant, 'no bound value in the log');
  t.notMatch(logged, /select |insert into/i, 'no statement text in the log');
  t.match(logged, /"code":"(42703|SQLITE_ERROR|23502|22P02|SQLITE_CONSTRAINT_NOTNULL)"/, 'the codes are logged');
});
