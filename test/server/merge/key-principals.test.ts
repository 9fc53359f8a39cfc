/**
 * Idempotency keys are the client's to choose, so two users may send the same one: a replay is
 * recognised only for the principal that sent the key. Bob's update under Alice's key is his own
 * write (review finding: it was answered 200 and silently not applied).
 */
import t from 'tap';
import { send } from '../../helpers/catalog.js';
import { startTestServer } from '../../helpers/server.js';
import { ONE, createEvent, createSightingType, historyOf } from './merge-support.js';

t.test('the same Idempotency-Key from two users: both updates are applied', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const alice = (await s.login()).access_token;
  await s.server.runtime.admin.createUser({ tenant: 'default', username: 'xkey.bob', password: 'Bushbuck-Pass-9', superuser: true });
  const bob = (await s.login('xkey.bob', 'Bushbuck-Pass-9')).access_token;
  await createSightingType(s, alice);
  const { id } = await createEvent(s, alice);
  const keyed = (body: unknown, token: string) => {
    const init = send('PATCH', body, token);
    return { ...init, headers: { ...(init.headers as Record<string, string>), 'Idempotency-Key': 'outbox-1' } };
  };
  const first = await s.request(`${ONE}/${id}`, keyed({ title: 'alice' }, alice));
  t.equal(first.status, 200);
  const second = await s.request(`${ONE}/${id}`, keyed({ title: 'bob', priority: 300 }, bob));
  t.equal(second.status, 200);
  t.equal(second.headers.get('idempotent-replayed'), null, 'not a replay of alice\'s request');
  const now = await s.json(`${ONE}/${id}`, { token: alice });
  const event = now.body.data ?? now.body;
  t.equal(event.title, 'bob', 'bob\'s title is written');
  t.equal(event.priority, 300, 'bob\'s priority is written');
  const again = await s.request(`${ONE}/${id}`, keyed({ title: 'bob', priority: 300 }, bob));
  t.equal(again.headers.get('idempotent-replayed'), 'true', 'bob\'s own repeat is a replay');
  const revisions = (await historyOf(s, alice, 'event', id)).revisions as unknown[];
  t.equal(revisions.length, 2, 'two updates, two history rows (the replay wrote none)');
});
