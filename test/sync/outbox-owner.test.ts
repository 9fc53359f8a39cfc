import t from 'tap';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { ownerOf, recordedBy } from '../../sync/outbox/owner.js';

/** Who may send an outbox entry (sync/outbox/owner.ts): its recorder, or anyone when none is known. */
const S = 'https://hq.example.org';
const entry = (who: Partial<Pick<OutboxEntry, 'userId' | 'username' | 'server'>>) => ({ id: 'e1', ...who }) as OutboxEntry;
const alice = { server: S, userId: 'u-alice', username: 'alice' };
const bob = { server: S, userId: 'u-bob', username: 'bob' };

t.test('an entry recorded by a user is theirs to send', async (t) => {
  t.ok(recordedBy(entry({ server: S, userId: 'u-alice', username: 'alice' }), alice));
  t.notOk(recordedBy(entry({ server: S, userId: 'u-alice', username: 'alice' }), bob), 'not bob\'s');
  t.notOk(recordedBy(entry({ server: 'https://other.example.org', userId: 'u-alice', username: 'alice' }), alice), 'nor for another server');
  t.ok(recordedBy(entry({ server: S, userId: null, username: 'alice' }), alice), 'by username when the id is not known');
});

t.test('an entry of no known user is anyone\'s (old entries, token sessions)', async (t) => {
  t.equal(ownerOf(entry({})), null);
  t.equal(ownerOf(entry({ server: S, userId: null, username: null })), null, 'a server alone names nobody');
  t.ok(recordedBy(entry({ server: S, userId: null, username: null }), bob));
  t.ok(recordedBy(entry({ server: S }), { server: S, userId: null, username: null }), 'and a session of no known user sends it');
  t.notOk(recordedBy(entry({ server: S, userId: 'u-alice', username: 'alice' }), { server: S, userId: null, username: null }), 'but never a known user\'s');
});
