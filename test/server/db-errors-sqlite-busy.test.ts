import t from 'tap';
import { translateDbError } from '../../server/db/errors.js';
import { UnavailableError } from '../../server/domain/errors.js';

t.test('SQLite busy and locked errors are 503, with their extended codes too', async (t) => {
  for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE']) {
    t.type(translateDbError(Object.assign(new Error('database is locked'), { code })), UnavailableError, code);
  }
  const other = Object.assign(new Error('no such table'), { code: 'SQLITE_ERROR' });
  t.equal(translateDbError(other), other, 'other errors are left alone');
});
