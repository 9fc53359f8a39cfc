import fc from 'fast-check';
import t from 'tap';
import { Manager } from 'socket.io-client';
import { dialect } from '../helpers/database.js';
import { describeDelay, heldLoop } from '../helpers/loop-delay.js';
import { PollingSession, SEPARATOR, authorizedSession, handshake, jsonRequest, rawRequest, sio, startRealtimeServer, within } from '../helpers/realtime-server.js';

/**
 * Issue 24, finding 5: adversarial fuzzing of the realtime channel, as fuzz.test.ts does the HTTP
 * surface. Generated engine.io and socket.io packets (garbage, huge, binary, malformed, many
 * namespaces, unknown events, absurd authorization tokens) over long-polling and WebSocket, to
 * a server in its own process. Invariants: never a 5xx; the server stays up; what it queues
 * for sessions stays within the per-session bound (read from its /metrics); the unauthorised
 * sessions are closed at their deadline; an authorised session keeps working; and the server's
 * event loop is never held (its own loop-delay monitor, as test/helpers/loop-delay.ts bounds it).
 * REALTIME_FUZZ_RUNS sets the number of cases (default 150).
 */
const RUNS = Number(process.env.REALTIME_FUZZ_RUNS ?? 150);
const WRITE_BUFFER_BOUND = 256;

const namespace = fc.oneof(
  { arbitrary: fc.constantFrom('/das', '/'), weight: 4 },
  { arbitrary: fc.constantFrom('/elsewhere', '/das/x', '/' + 'n'.repeat(2000), '/ü😀', '/das?x=1', '//', '/../..', '/\u0000'), weight: 2 },
  { arbitrary: fc.string({ maxLength: 30 }).map((name) => '/' + name.replace(/,/g, '')), weight: 2 },
);
const eventName = fc.oneof(
  fc.constantFrom('authorization', 'echo', 'event_filter', 'patrol_filter', 'profile', 'disconnect', 'connect', 'error', 'newListener', '__proto__', 'constructor', 'toString'),
  fc.string({ maxLength: 40 }),
);
const absurdToken = fc.oneof(
  fc.constantFrom('', 'Bearer', 'Bearer ', 'bearer\ttoken', 'Bearer ' + 'a'.repeat(15_000), 'Bearer \u0000\uffff', 'Basic YWRtaW46YWRtaW4=', 'Bearer ../../etc/passwd', "Bearer ' OR 1=1 --", 'Bearer 😀'.repeat(200)),
  fc.string({ maxLength: 200 }).map((text) => `Bearer ${text}`),
  fc.jsonValue({ maxDepth: 3 }),
);
const authorization = fc.tuple(namespace, absurdToken, fc.boolean()).map(([nsp, token, wrapped]) => sio.event('authorization', wrapped ? { type: 'authorization', id: 1, authorization: token } : token, nsp));
const event = fc.tuple(eventName, fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.string({ maxLength: 3000 })), namespace, fc.option(fc.nat(), { nil: undefined })).map(([name, data, nsp, ack]) => {
  const prefix = nsp === '/' ? '' : `${nsp},`;
  return `42${prefix}${ack ?? ''}${JSON.stringify([name, data])}`;
});
const socketIoPacket = fc.oneof(
  { arbitrary: namespace.map((nsp) => sio.connect(nsp)), weight: 3 },
  { arbitrary: event, weight: 5 },
  { arbitrary: authorization, weight: 3 },
  { arbitrary: namespace.map((nsp) => `41${nsp === '/' ? '' : `${nsp},`}`), weight: 1 },
  // Binary events announcing attachments that never come (or too many), acks, connect errors.
  { arbitrary: fc.constantFrom('451-/das,["echo",{"_placeholder":true,"num":0}]', '4999-/das,["x"]', '46/das,1[]', '43/das,7["x"]', '44/das,{"message":"x"}', '40/das,{"token":"x"}', '40/das,[', '42/das,', '42/das,[]', '42/das,{}', '42/das,[1]', '42/das,["echo"', '4' + '2'.repeat(100), '4-1', '42/das,1e999["echo"]'), weight: 2 },
);
const enginePacket = fc.oneof(
  { arbitrary: socketIoPacket, weight: 8 },
  { arbitrary: fc.constantFrom('', '1', '2', '2probe', '3', '3probe', '5', '6', '7', '9', 'b', 'bAAAA', 'b!!!!', '0{}', '4'), weight: 2 },
  { arbitrary: fc.string({ maxLength: 200 }), weight: 2 },
);
const body = fc.oneof(
  { arbitrary: fc.array(enginePacket, { minLength: 1, maxLength: 40 }).map((packets) => ({ type: 'text/plain;charset=UTF-8', body: packets.join(SEPARATOR) as string | Buffer })), weight: 8 },
  // Floods in one body: ~1,000 echoes (the review's), 300 namespaces; and a body past maxHttpBufferSize.
  {
    arbitrary: fc.constantFrom(
      Array.from({ length: 1000 }, () => sio.event('echo')).join(SEPARATOR),
      Array.from({ length: 300 }, (_, i) => sio.connect(`/n${i}`)).join(SEPARATOR),
      'x'.repeat(17 * 1024),
    ).map((text) => ({ type: 'text/plain;charset=UTF-8', body: text as string | Buffer })),
    weight: 1,
  },
  { arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => ({ type: 'application/octet-stream', body: Buffer.from(bytes) as string | Buffer })), weight: 1 },
);
const wsFrame = fc.oneof(socketIoPacket.map((packet) => packet.slice(1) as string | Buffer), fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes) as string | Buffer), fc.string({ maxLength: 100 }));
const handshakeQuery = fc.constantFrom('EIO=3&transport=polling', 'EIO=5&transport=polling', 'EIO=4&transport=websocket', 'EIO=4&transport=flashsocket', 'EIO=4', 'EIO=4&transport=polling&sid=nope', 'EIO=4&transport=polling&sid=', 'EIO=4&transport=polling&sid[]=x', 'EIO=4&transport=polling&b64=1&j=0', 'EIO=4&transport=polling&EIO=3');

type Case =
  | { kind: 'polling'; join: '/das' | '/' | null; authorize: boolean; bodies: Array<{ type: string; body: string | Buffer }>; poll: boolean }
  | { kind: 'websocket'; frames: Array<string | Buffer> }
  | { kind: 'request'; method: string; query: string; session: boolean };

const testCase: fc.Arbitrary<Case> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('polling' as const), join: fc.constantFrom('/das' as const, '/' as const, null), authorize: fc.boolean(), bodies: fc.array(body, { minLength: 1, maxLength: 4 }), poll: fc.boolean() }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('websocket' as const), frames: fc.array(wsFrame, { minLength: 1, maxLength: 30 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('request' as const), method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), query: handshakeQuery, session: fc.boolean() }), weight: 1 },
);

t.test(`realtime fuzzing (${dialect}, ${RUNS} cases)`, async (t) => {
  const s = await startRealtimeServer(t, { FIELDOPS_REALTIME_AUTHORIZE_SECONDS: '2' });
  if (!s) return;
  const token = await s.login();
  t.equal((await jsonRequest(`${s.url}/api/v2.0/activity/eventtypes`, 'POST', { value: 'sighting', display: 'Sighting' }, token)).status, 201);
  // Retried if the 2 s deadline beats its authorization (a loaded machine): once authorised, it
  // has no deadline, so the run does not depend on this machine's speed.
  const witness = await authorizedSession(t, s.url, token);
  t.equal(witness.status, 200, 'a well-behaved session, kept through the run');

  const outcomes = new Map<string, number>();
  const note = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
  let maxQueued = 0;
  const measured = await s.loopDelay(() =>
    fc.assert(
      fc.asyncProperty(testCase, async (fuzz) => {
        const statuses: number[] = [];
        if (fuzz.kind === 'request') {
          // Any method, on a handshake or on an open session.
          const query = fuzz.session ? `EIO=4&transport=polling&sid=${encodeURIComponent((await PollingSession.open(s.url)).sid)}` : fuzz.query;
          const answer = await rawRequest(`${s.url}/socket.io/?${query}`, { method: fuzz.method, body: fuzz.method === 'POST' ? '40/das,' : undefined, timeoutMs: 5000 });
          statuses.push(answer.status);
        } else if (fuzz.kind === 'polling') {
          // Joined to a namespace, and authorised with a valid token, or not: garbage then comes
          // to a session in every state.
          const session = await PollingSession.open(s.url);
          if (fuzz.join && fuzz.authorize) note(`authorized ${await session.authorize(token, fuzz.join)}`);
          else if (fuzz.join) await session.post(sio.connect(fuzz.join));
          for (const { type, body } of fuzz.bodies) statuses.push((await session.post(body, type)).status);
          if (fuzz.poll) statuses.push((await within(session.poll(), 5000, { status: -1, packets: [], body: '' })).status);
          // An authorised session has no deadline: it leaves (an engine.io close) if still open.
          if (fuzz.join && fuzz.authorize) await session.post('1');
        } else {
          const manager = new Manager(s.url, { path: '/socket.io', transports: ['websocket'], reconnection: false, autoConnect: false });
          try {
            const opened = await within(new Promise<boolean>((resolve) => manager.open((error) => resolve(!error))), 10_000, false);
            if (!opened) throw new Error('a WebSocket session did not open');
            for (const frame of fuzz.frames) manager.engine.write(frame as string);
            await within(new Promise<void>((resolve) => manager.engine.once('drain', () => resolve())), 1000, undefined);
          } finally {
            manager.engine?.close();
          }
        }
        for (const status of statuses) note(String(status));
        // 0: the server cut the connection of a session it dropped; -1: a poll with nothing to read.
        const fault = statuses.find((status) => status >= 500);
        if (fault !== undefined) throw new Error(`${fuzz.kind} answered ${fault}`);
        if (!(await s.alive())) throw new Error('the server is down');
        const scrape = await s.metrics();
        const queued = scrape.value('fieldops_realtime_queued_packets');
        const connected = scrape.value('fieldops_realtime_sessions', { state: 'connected' });
        maxQueued = Math.max(maxQueued, queued);
        if (queued > connected * WRITE_BUFFER_BOUND) throw new Error(`${queued} packets queued for ${connected} sessions`);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261124) },
    ),
  );
  const scrape = await s.metrics();
  const dropped = ['authorization_deadline', 'message_rate', 'write_buffer', 'stalled'].map((reason) => `${reason} ${scrape.value('fieldops_realtime_dropped_total', { reason })}`).join(', ');
  t.comment(`sessions dropped so far: ${dropped}`);
  t.comment(`answers by status: ${[...outcomes].sort().map(([status, n]) => `${status}: ${n}`).join(', ')}; most packets queued at once: ${maxQueued}`);
  t.notOk(heldLoop(measured), `the server's event loop: ${describeDelay(measured)}`);

  // A session socket.io itself closed (a packet out of place) waits for the client's next poll
  // to say so, at most engine.io's 30 s close timeout; the others go at their 2 s deadline.
  const after = await s.until((scrape) => scrape.value('fieldops_realtime_sessions', { state: 'connected' }) <= 1, 40_000);
  const reasons = ['authorization_deadline', 'message_rate', 'write_buffer', 'stalled'].map((reason) => `${reason} ${after.value('fieldops_realtime_dropped_total', { reason })}`).join(', ');
  const open = after.value('fieldops_realtime_sessions', { state: 'connected' });
  t.equal(open, 1, `every fuzzing session is closed, the witness stays (${open} open; dropped: ${reasons})`);
  t.equal(after.value('fieldops_realtime_queued_packets'), 0, 'nothing left queued');
  t.ok(witness.socket.connected, 'the well-behaved session is still connected');
  const pushed = new Promise<{ event_id: string }>((resolve) => witness.socket.once('new_event', resolve));
  const created = await jsonRequest(`${s.url}/api/v1.0/activity/events`, 'POST', { event_type: 'sighting', event_details: {} }, token);
  t.equal(created.status, 201);
  t.equal((await pushed).event_id, (JSON.parse(created.body) as { id: string }).id, 'and still receives changes');
  t.equal((await handshake(s.url)).status, 200, 'new sessions are admitted');
});
