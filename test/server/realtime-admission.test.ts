import t from 'tap';
import { io } from 'socket.io-client';
import { dialect } from '../helpers/database.js';
import { describeDelay, heldLoop } from '../helpers/loop-delay.js';
import { realtimeSession } from '../helpers/realtime-session.js';
import { PollingSession, handshake, sio, startRealtimeServer, within } from '../helpers/realtime-server.js';

/**
 * Issue 24, finding 2: realtime sessions that never authorise do not live forever, and one
 * client address (as FIELDOPS_TRUST_PROXY decides it), or all of them, cannot open without
 * bound. The server runs in its own process; its session counts are read from /metrics.
 */

const from = (address: string) => ({ 'x-forwarded-for': address });
const parsed = (body: string | undefined): unknown => {
  try {
    return JSON.parse(body ?? '');
  } catch {
    return body;
  }
};

t.test(`realtime: sessions per address and in all are capped; the unauthorised ones are closed at the deadline (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t, {
    FIELDOPS_TRUST_PROXY: '1',
    FIELDOPS_REALTIME_AUTHORIZE_SECONDS: '2',
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

  scrape = await s.until((now) => now.value('fieldops_realtime_sessions', { state: 'connected' }) === 0);
  t.equal(scrape.value('fieldops_realtime_sessions', { state: 'connected' }), 0, 'every unauthorised session is closed at its deadline');
  t.equal(scrape.value('fieldops_realtime_dropped_total', { reason: 'authorization_deadline' }), 8, 'eight dropped for the deadline');
  t.equal((await handshake(s.url, from('10.0.0.1'))).status, 200, 'and the address may open sessions again');

  // An authorised session outlives the deadline: a session opened after it is reaped first.
  const token = await s.login();
  const kept = await realtimeSession(t, s.url, token, { transports: ['polling'] });
  t.equal(kept.status, 200);
  const later = await PollingSession.open(s.url, from('10.0.0.4'));
  t.equal((await later.post(sio.connect())).status, 200);
  scrape = await s.until((now) => now.value('fieldops_realtime_sessions', { state: 'connected' }) <= 1);
  t.equal(scrape.value('fieldops_realtime_sessions', { state: 'connected' }), 1, 'the unauthorised sessions are gone');
  t.ok(kept.socket.connected, 'the authorised one is still connected');
  const echo = new Promise((resolve) => kept.socket.once('echo_resp', resolve));
  kept.socket.emit('echo', { data: 'ping' });
  t.same(await echo, { data: 'pong' }, 'and still answered');

  // Refusals are cheap: hundreds of them do not hold the server's event loop.
  for (let i = 0; i < 7; i++) await handshake(s.url, from(`10.0.1.${i}`));
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

t.test(`realtime: without a trusted proxy the address is the connection's (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t, { FIELDOPS_REALTIME_SESSIONS_PER_ADDRESS: '3' });
  if (!s) return;
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await handshake(s.url, from(`10.9.0.${i}`))).status);
  t.same(statuses, [200, 200, 200, 403], 'X-Forwarded-For is not read: all four are 127.0.0.1');
});
