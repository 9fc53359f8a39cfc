import t from 'tap';
import type { Principal } from '../../server/domain/context.js';
import { RealtimeHub } from '../../server/http/realtime/hub.js';
import { withoutOrigin } from '../../server/http/realtime/urls.js';

/** A principal as the token check gives it: only what the hub reads is meaningful. */
const viewer = { kind: 'user', tenantId: 'north', permissions: new Set(['view_event']), isSuperuser: false } as unknown as Principal;
const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('a token that cannot be checked now skips the delivery and keeps the session; a refused one ends it', async (t) => {
  const hub = new RealtimeHub();
  const sent: number[] = [];
  let closed = 0;
  let answer: () => Promise<Principal | null> = async () => viewer;
  hub.add({ tenantId: 'north', origin: 'http://north.example', authorize: () => answer(), send: (_type, payload) => sent.push(payload.mid as number), close: () => closed++ });

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

t.test("each session's copy of a change has its URLs on the session's own origin, none on the writer's", async (t) => {
  const hub = new RealtimeHub();
  const got: Record<string, any> = {};
  for (const origin of ['http://127.0.0.1:8000', 'https://fieldops.example.org']) {
    hub.add({ tenantId: 'north', origin, authorize: async () => viewer, send: (_type, payload) => (got[origin] = payload.event_data), close: () => {} });
  }
  const written = {
    id: 'e1',
    url: 'http://attacker.example/api/v1.0/activity/event/e1',
    files: [{ id: 'f1', url: 'http://attacker.example/api/v1.0/activity/event/e1/file/f1/content' }],
    event_details: { url: 'http://attacker.example/kept-as-written' },
  };
  hub.publish('north', 'event', 'created', withoutOrigin('event', written));
  await settle();
  t.same(got['http://127.0.0.1:8000'], { ...written, url: 'http://127.0.0.1:8000/api/v1.0/activity/event/e1', files: [{ id: 'f1', url: 'http://127.0.0.1:8000/api/v1.0/activity/event/e1/file/f1/content' }] });
  t.equal(got['https://fieldops.example.org'].files[0].url, 'https://fieldops.example.org/api/v1.0/activity/event/e1/file/f1/content');
  t.same(got['https://fieldops.example.org'].event_details, written.event_details, 'event_details are data, never rewritten');
});
