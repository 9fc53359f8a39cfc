import t from 'tap';
import type { Principal } from '../../server/domain/context.js';
import { RealtimeHub } from '../../server/http/realtime/hub.js';

/** A principal as the token check gives it: only what the hub reads is meaningful. */
const viewer = { kind: 'user', tenantId: 'north', permissions: new Set(['view_event']), isSuperuser: false } as unknown as Principal;
const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('a token that cannot be checked now skips the delivery and keeps the session; a refused one ends it', async (t) => {
  const hub = new RealtimeHub();
  const sent: number[] = [];
  let closed = 0;
  let answer: () => Promise<Principal | null> = async () => viewer;
  hub.add({ tenantId: 'north', authorize: () => answer(), send: (_type, payload) => sent.push(payload.mid as number), close: () => closed++ });

  hub.publish('north', 'event', 'created', { id: 'e1' });
  await settle();
  t.same(sent, [1], 'delivered while the token checks out');

  answer = async () => { throw new Error('the database is unavailable'); };
  hub.publish('north', 'event', 'created', { id: 'e2' });
  await settle();
  t.same(sent, [1], 'not delivered while the token cannot be checked');
  t.equal(closed, 0, 'and the session is kept (a database outage is not a revocation)');

  answer = async () => viewer;
  hub.publish('north', 'event', 'created', { id: 'e3' });
  await settle();
  t.same(sent, [1, 2], 'delivered again once the check works, numbered in sequence');

  answer = async () => null;
  hub.publish('north', 'event', 'created', { id: 'e4' });
  await settle();
  t.equal(closed, 1, 'a revoked or expired token ends the session');
  hub.publish('north', 'event', 'created', { id: 'e5' });
  await settle();
  t.same(sent, [1, 2], 'and it gets nothing more');
});
