import t from 'tap';
import { io } from 'socket.io-client';
import { dialect } from '../helpers/database.js';
import { describeDelay, heldLoop } from '../helpers/loop-delay.js';
import { PollingSession, type Scrape, authorizedSession, handshake, rawRequest, sio, startRealtimeServer, within } from '../helpers/realtime-server.js';

/**
 * Issue 24, finding 2: realtime sessions that never authorise do not live forever, and one
 * client address (as FIELDOPS_TRUST_PROXY decides it), or all of them, cannot open without
 * bound. The server runs in its own process; its session counts are read from /metrics. The caps
 * are tested under a deadline no run comes near, the deadline on its own with waits that do not
 * depend on this machine's speed (a generous bound on when, an exact count of what).
 */

const from = (address: string) => ({ 'x-forwarded-for': address });
const parsed = (body: string | undefined): unknown => {
  try {
    return JSON.parse(body ?? '');
  } catch {
    return body;
  }
};

t.test(`realtime: sessions per address and in all are capped (${dialect})`, async (t) => {
  // A deadline no run of this test comes near: every session here stays until the test closes it.
  const s = await startRealtimeServer(t, {
    FIELDOPS_TRUST_PROXY: '1',
    FIELDOPS_REALTIME_AUTHORIZE_SECONDS: '60',
    FIELDOPS_REALTIME_SESSIONS_PER_ADDRESS: '5',
    FIELDOPS_REALTIME_SESSIONS: '8',
  });
  if (!s) return;

  const first = [];
  for (let i = 0; i < 6; i++) first.push(await handshake(s.url, from('10.0.0.1')));
  t.same(first.map((answer) => answer.status), [200, 200, 200, 200, 200, 403], 'five sessions from one address, the sixth refused');
  t.same(parsed(first[5]?.body), { code: 4, message: 'Too many realtime sessions from this address' }, "engine.io's refusal body");
  t.equal((await handshake(s.url, from('203.0.113.9, 10.0.0.1'))).status, 403, 'entries left of the trusted hop are the client\'s own: the same address');
  const second = [];
  for (let i = 0; i < 4; i++) second.push(await handshake(s.url, from('10.0.0.2')));
  t.same(second.map((answer) => answer.status), [200, 200, 200, 403], 'eight in all, the ninth refused whatever its address');
  t.same(parsed(second[3]?.body), { code: 4, message: 'The server holds too many realtime sessions' });
  const refusedClient = io(s.url + '/das', { path: '/socket.io', reconnection: false, extraHeaders: from('10.0.0.3') });
  t.teardown(() => void refusedClient.close());
  const refusal = await within(new Promise<string>((resolve) => refusedClient.once('connect_error', (error) => resolve(error.message))), 10_000, 'no connect_error');
  t.not(refusal, 'no connect_error', `a socket.io client is told (${refusal})`);
  let scrape = await s.metrics();
  t.equal(scrape.value('fieldops_realtime_sessions', { state: 'connected' }), 8);
  t.ok(scrape.value('fieldops_realtime_refused_total', { reason: 'per_address' }) >= 2 && scrape.value('fieldops_realtime_refused_total', { reason: 'total' }) >= 2, 'refusals counted by reason');

  // A session that ends gives its slots back: one of 10.0.0.1's closes (an engine.io close packet).
  const closed = await rawRequest(`${s.url}/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(first[0]?.sid ?? '')}`, { method: 'POST', headers: { ...from('10.0.0.1'), 'content-type': 'text/plain;charset=UTF-8' }, body: '1' });
  t.equal(closed.status, 200, 'a session closed by its client');
  scrape = await s.until((now) => now.value('fieldops_realtime_sessions', { state: 'connected' }) === 7);
  t.equal(scrape.value('fieldops_realtime_sessions', { state: 'connected' }), 7);
  t.equal((await handshake(s.url, from('10.0.0.1'))).status, 200, 'and the address may open one again');
  t.equal(scrape.value('fieldops_realtime_dropped_total', { reason: 'authorization_deadline' }), 0, 'none reached its deadline');

  // Refusals are cheap: hundreds of them do not hold the server's event loop (it is full now).
  const measured = await s.loopDelay(async () => {
    const statuses = new Map<number, number>();
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => handshake(s.url, from(`10.0.2.${i}`))));
      for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    return statuses;
  });
  t.ok((measured.result.get(403) ?? 0) > 0, `refused while full (${JSON.stringify([...measured.result])})`);
  t.ok([...measured.result.keys()].every((status) => status === 200 || status === 403), 'only 200 or 403');
  t.notOk(heldLoop(measured), describeDelay(measured));
  t.ok(await s.alive(), 'the server is up');
});

t.test(`realtime: an unauthorised session is closed at its deadline, an authorised one is not (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t, { FIELDOPS_REALTIME_AUTHORIZE_SECONDS: '2' });
  if (!s) return;
  const connected = (scrape: Scrape) => scrape.value('fieldops_realtime_sessions', { state: 'connected' });
  const token = await s.login();
  // Authorised first (a try the deadline beat is retried): it must outlive the other's deadline.
  const kept = await authorizedSession(t, s.url, token, { transports: ['polling'] });
  t.equal(kept.status, 200);
  const before = (await s.metrics()).value('fieldops_realtime_dropped_total', { reason: 'authorization_deadline' });
  const idle = await PollingSession.open(s.url);
  t.equal((await idle.post(sio.connect())).status, 200, 'a session joins /das and never authorises');

  const scrape = await s.until((now) => connected(now) <= 1, 20_000);
  t.equal(connected(scrape), 1, 'the unauthorised session is gone');
  t.equal(scrape.value('fieldops_realtime_dropped_total', { reason: 'authorization_deadline' }) - before, 1, 'closed for its deadline');
  t.equal(scrape.value('fieldops_realtime_sessions', { state: 'authorized' }), 1);
  t.ok(kept.socket.connected, 'the authorised one is still connected');
  const echo = new Promise((resolve) => kept.socket.once('echo_resp', resolve));
  kept.socket.emit('echo', { data: 'ping' });
  t.same(await echo, { data: 'pong' }, 'and still answered');
});

t.test(`realtime: a session whose last authorised socket leaves is under the deadline again (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t, { FIELDOPS_REALTIME_AUTHORIZE_SECONDS: '2' });
  if (!s) return;
  const connected = (scrape: Scrape) => scrape.value('fieldops_realtime_sessions', { state: 'connected' });
  const token = await s.login();
  const kept = await authorizedSession(t, s.url, token, { transports: ['polling'] });
  t.equal(kept.status, 200);
  // Authorised on /das, then it leaves the namespace and keeps its engine.io session (it could
  // answer heartbeats for ever). It reads nothing meanwhile, so nothing but the deadline (the
  // heartbeat would take 45 s) closes it within the wait below.
  const leaver = await PollingSession.authorized(s.url, token);
  let scrape = await s.metrics();
  t.same([connected(scrape), scrape.value('fieldops_realtime_sessions', { state: 'authorized' })], [2, 2], 'two sessions, both authorised');
  const before = scrape.value('fieldops_realtime_dropped_total', { reason: 'authorization_deadline' });
  t.equal((await leaver.post('41/das,')).status, 200, 'the socket leaves /das');

  scrape = await s.until((now) => connected(now) <= 1, 20_000);
  t.equal(connected(scrape), 1, 'its session is closed (the unfixed server kept it, authorised, with no socket)');
  t.equal(scrape.value('fieldops_realtime_dropped_total', { reason: 'authorization_deadline' }) - before, 1, 'at its new deadline');
  t.equal(scrape.value('fieldops_realtime_sessions', { state: 'authorized' }), 1, 'the other is still registered');
  t.ok(kept.socket.connected, 'and connected');
});

t.test(`realtime: without a trusted proxy the address is the connection's (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t, { FIELDOPS_REALTIME_SESSIONS_PER_ADDRESS: '3' });
  if (!s) return;
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await handshake(s.url, from(`10.9.0.${i}`))).status);
  t.same(statuses, [200, 200, 200, 403], 'X-Forwarded-For is not read: all four are 127.0.0.1');
});
