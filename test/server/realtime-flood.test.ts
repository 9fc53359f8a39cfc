import t from 'tap';
import { io } from 'socket.io-client';
import { dialect } from '../helpers/database.js';
import { realtimeSession } from '../helpers/realtime-session.js';
import { PollingSession, SEPARATOR, type Scrape, jsonRequest, sio, startRealtimeServer, within } from '../helpers/realtime-server.js';

/**
 * Issue 24, finding 1: a realtime client cannot make the server queue without bound. The server
 * runs in its own process; what it holds is read from its /metrics (`fieldops_realtime_*`).
 */

/** A session's outgoing packets the server holds at most (server/http/realtime/guard.ts). */
const WRITE_BUFFER_BOUND = 256;
const E = '/api/v1.0/activity/events';

t.test(`realtime: an anonymous flood is not answered and not queued (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;

  // The review's client: joins /das, never authorises, never polls, and posts 16 KB bodies of
  // 1,000 `echo` events each, with an unsolicited pong to keep the session alive.
  const attacker = await PollingSession.open(s.url);
  t.equal((await attacker.post(sio.connect())).status, 200, 'joined /das');
  // First 90 echoes, within its allowance: the session stays, and they are not answered, so
  // nothing more is queued for it (the unfixed server queued an echo_resp for each).
  const queued = (scrape: Scrape) => scrape.value('fieldops_realtime_queued_packets');
  const before = queued(await s.metrics());
  t.equal((await attacker.post(Array.from({ length: 90 }, () => sio.event('echo')))).status, 200, '90 echoes taken');
  const held = await s.metrics();
  t.equal(held.value('fieldops_realtime_sessions', { state: 'connected' }), 1, 'the session is still open');
  t.equal(queued(held), before, `nothing queued for them (held: ${queued(held)}; before them: ${before}, its namespace's acknowledgement)`);
  const body = ['3', ...Array.from({ length: 1000 }, () => sio.event('echo'))].join(SEPARATOR);
  t.ok(body.length > 15_000 && body.length <= 16 * 1024, `a body of ${body.length} bytes`);
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await attacker.post(body)).status);
  const scrape = await s.metrics();
  t.ok(statuses.slice(1).every((status) => status !== 200), `the session is dropped at its first flood (posts answered ${statuses.join(' ')})`);
  t.ok(scrape.value('fieldops_realtime_dropped_total', { reason: 'message_rate' }) >= 1, 'counted as dropped for its message rate');
  t.ok(await s.alive(), 'the server is up');
});

t.test(`realtime: echo is answered only once the session is authorised (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;
  const socket = io(s.url + '/das', { path: '/socket.io', transports: ['polling'], reconnection: false });
  t.teardown(() => void socket.close());
  const received: string[] = [];
  socket.onAny((type: string) => received.push(type));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  // Messages are handled in order: an echo answered before authorization would arrive first.
  const answered = new Promise<{ status: { code: number } }>((resolve) => socket.once('resp_authorization', resolve));
  socket.emit('echo', { data: 'ping' });
  socket.emit('authorization', { type: 'authorization', id: 1, authorization: 'Bearer not-a-token' });
  t.equal((await answered).status.code, 401);
  t.same(received, ['resp_authorization'], 'no echo_resp to an unauthorised socket, only the authorization answer');

  const session = await realtimeSession(t, s.url, await s.login());
  t.equal(session.status, 200);
  const echo = new Promise((resolve) => session.socket.once('echo_resp', resolve));
  session.socket.emit('echo', { data: 'ping' });
  t.same(await echo, { data: 'pong' }, 'an authorised session gets its echo');
});

t.test(`realtime: a session that does not read, or floods while authorised, is dropped (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;
  const token = await s.login();
  t.equal((await jsonRequest(`${s.url}/api/v2.0/activity/eventtypes`, 'POST', { value: 'sighting', display: 'Sighting' }, token)).status, 201);

  // Authorised over raw long-polling, then it never polls again while changes are pushed to it.
  const reader = await PollingSession.open(s.url);
  t.equal(await reader.authorize(token), 200, 'authorised');
  const sessions = await s.metrics();
  t.equal(sessions.value('fieldops_realtime_sessions', { state: 'authorized' }), 1);
  let created = 0;
  const create = async (count: number) => {
    for (let i = 0; i < count; i++) created += Number((await jsonRequest(s.url + E, 'POST', { event_type: 'sighting', event_details: {} }, token)).status === 201);
  };
  const queued = (scrape: Scrape) => scrape.value('fieldops_realtime_queued_packets');
  // Below the bound it is kept, and what waits for it is counted (what the fuzzing's bound reads).
  await create(200);
  const holding = await s.until((scrape) => queued(scrape) >= 200, 15_000);
  t.ok(queued(holding) >= 200 && queued(holding) <= WRITE_BUFFER_BOUND, `200 changes pushed: the server holds ${queued(holding)} packets for it`);
  t.equal(holding.value('fieldops_realtime_sessions', { state: 'authorized' }), 1, 'and keeps it');
  await create(WRITE_BUFFER_BOUND + 44 - 200);
  t.equal(created, WRITE_BUFFER_BOUND + 44, 'events created');
  const after = await s.until((scrape) => scrape.value('fieldops_realtime_sessions', { state: 'authorized' }) === 0, 5000);
  t.equal(after.value('fieldops_realtime_sessions', { state: 'authorized' }), 0, 'past the bound, the session that does not read is dropped');
  t.equal(queued(after), 0, 'and what it held is let go');
  t.ok(after.value('fieldops_realtime_dropped_total', { reason: 'write_buffer' }) >= 1, 'for its write buffer');
  t.equal((await reader.poll()).status, 400, 'its next poll finds no session');

  // An authorised session that sends a thousand messages at once (a WebSocket: one frame each).
  const flooder = await realtimeSession(t, s.url, token, { transports: ['websocket'] });
  t.equal(flooder.status, 200);
  const closed = new Promise<string>((resolve) => flooder.socket.once('disconnect', resolve));
  for (let i = 0; i < 1000; i++) flooder.socket.emit('echo', { data: i });
  const reason = await within(closed, 10_000, 'still connected after 10 s');
  t.not(reason, 'still connected after 10 s', `disconnected (${reason})`);
  t.ok(flooder.received.filter(([type]) => type === 'echo_resp').length < 1000, 'not every message was answered');
  t.ok(await s.alive(), 'the server is up');
});

t.test(`realtime: authorization messages that come during a check are each answered, the last one decides (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;
  const token = await s.login();
  const authorized = async () => (await s.metrics()).value('fieldops_realtime_sessions', { state: 'authorized' });
  /**
   * A session joined to /das that sends these authorization messages in one body: the server
   * takes them in one turn, so all but the first come while the first is checked. The codes of
   * the `resp_authorization` answers, in order (polls until `expected` or the session ends).
   */
  const sendTogether = async (tokens: string[], expected: number) => {
    const session = await PollingSession.open(s.url);
    await session.post(sio.connect());
    await session.pollUntil((packet) => packet.startsWith(sio.connect()));
    t.equal((await session.post(tokens.map((each) => sio.authorization(each)))).status, 200);
    const codes: number[] = [];
    for (let i = 0; i < 10 && codes.length < expected; i++) {
      const { status, packets } = await session.poll();
      for (const packet of packets) if (packet.includes('"resp_authorization"')) codes.push(Number(/"code":(\d+)/.exec(packet)?.[1] ?? 0));
      if (status !== 200 || packets.includes('1')) break;
    }
    return { session, codes };
  };

  const mended = await sendTogether(['not-a-token', token], 2);
  t.same(mended.codes, [401, 200], 'a bad token, then a good one: both answered (the unfixed server answered the first and closed)');
  t.equal(await authorized(), 1, 'the last one decides: the session is authorised');
  await mended.session.post(sio.event('echo', { data: 'ping' }));
  t.ok((await mended.session.pollUntil((packet) => packet.includes('"echo_resp"'))).some((packet) => packet.includes('"echo_resp"')), 'and its echo is answered');

  const spoiled = await sendTogether([token, 'not-a-token'], 2);
  t.same(spoiled.codes, [200, 401], 'a good token, then a bad one: both answered (the unfixed server answered only the first)');
  // The server closes the session once its client has read the answers: at its next poll.
  const closing = await within(spoiled.session.poll(), 10_000, { status: -1, packets: [], body: 'no answer' });
  t.ok(closing.status === 400 || closing.packets.includes('1'), `its next poll finds it closed (${closing.status} ${closing.body})`);
  const after = await s.until((scrape) => scrape.value('fieldops_realtime_sessions', { state: 'connected' }) === 1);
  t.same([after.value('fieldops_realtime_sessions', { state: 'connected' }), after.value('fieldops_realtime_sessions', { state: 'authorized' })], [1, 1], 'the last one decides: that session is closed');

  const repeated = await sendTogether([token, token, token], 3);
  t.same(repeated.codes, [200, 200, 200], 'three at once: three answers');
  t.equal(await authorized(), 2, 'and one registration for the session');
  t.ok(await s.alive(), 'the server is up');
});
