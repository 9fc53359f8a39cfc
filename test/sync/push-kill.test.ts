/**
 * kill -9 at every step of a batched push (issue 26 §10, both databases): the real `fieldops
 * serve` and the real CLI, each killed by its crash points (server/testing/crash-points.ts,
 * sync/testing/crash-points.ts) in the middle of a batch, then resumed. Afterwards every entry is
 * `sent` exactly once: 12 new events, each update one revision in the record's history, no
 * conflict, nothing pending. A proxy (whose upstream follows the restarted server) also drops a
 * batch's answer after the server committed it: the CLI's retry is answered `replayed`.
 *
 * The laptop's outbox, in recorded order (the server's write transactions in brackets):
 * 6 creates [1], update of B [2], the chained edits of A (active [3], then resolved [4], based on
 * the first), 6 creates [5], update of C [6], note and end of patrol P [7, 8], of Q [9, 10].
 * `@3` hits the first of A's edits: the second is based on it (`base: {entry}`).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { cliEnv, type CliEnv } from '../helpers/cli-env.js';
import { createTestDatabase, serverDataDir, unavailableReason } from '../helpers/database.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';
import { listenForTest } from '../helpers/test-listener.js';

const PASSWORD = 'kill-test-password-1';
const PUSH = '/api/fieldops/v1/sync/push';
const EVENTS = '/api/v1.0/activity/events';
const history = (kind: string, id: string) => `/api/fieldops/v1/records/${kind}/${id}/history`;

interface Site {
  /** The proxy's URL (what the CLI talks to); its upstream follows restarts. */
  url: string;
  api(method: string, path: string, body?: unknown): Promise<any>;
  /** Starts the server (again) on the same database, with these crash points armed. */
  start(points?: string): Promise<void>;
  serve(): ServeProcess;
  /** Decides, once the server answered a batch, whether the client gets a cut connection instead. */
  drop: ((index: number) => boolean) | null;
  /** Per batch answered: the outcome statuses, and whether the answer was dropped. */
  batches: Array<{ statuses: string[]; dropped: boolean }>;
}

async function startSite(t: Test): Promise<Site | null> {
  const reason = await unavailableReason();
  if (reason) {
    t.pass('skipped', { skip: reason });
    return null;
  }
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dataDir = serverDataDir(t);
  let serve: ServeProcess | null = null;
  let upstream = '';
  let token = '';
  t.teardown(async () => {
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
  const agent = new http.Agent({ keepAlive: false });
  const site: Site = {
    url: '',
    drop: null,
    batches: [],
    serve: () => serve!,
    async start(points = '') {
      if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
      serve = serveProcess({ DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_CRASH_POINTS: points });
      upstream = await serve.url;
      const login = await fetch(`${upstream}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
      token = ((await login.json()) as { access_token: string }).access_token;
    },
    async api(method, path, body) {
      const response = await fetch(upstream + path, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
  };
  const proxy = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const target = new URL(upstream);
    const forward = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers, agent }, async (answer) => {
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      const body = Buffer.concat(parts);
      let dropped = false;
      if (request.url === PUSH && answer.statusCode === 200) {
        dropped = site.drop?.(site.batches.length + 1) === true;
        site.batches.push({ statuses: (JSON.parse(body.toString()) as { outcomes: Array<{ status: string }> }).outcomes.map((o) => o.status), dropped });
      }
      if (dropped) {
        response.socket?.destroy();
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(body);
    });
    forward.on('error', () => response.socket?.destroy());
    forward.end(Buffer.concat(chunks));
  });
  site.url = await listenForTest(t, proxy, agent);
  await site.start();
  return site;
}

interface Laptop {
  cli: CliEnv;
  /** Pulled events: A edited twice (chained), B and C once. */
  events: { a: string; b: string; c: string };
  /** This round's two patrols (on the server, pulled): each gets a note and an end. */
  patrols: string[];
  /** Patrols started and pushed for the rounds to come. */
  spare: string[];
}

/** Runs the CLI with --json; throws with its stderr unless it exits 0. */
async function ok(cli: CliEnv, args: string[]): Promise<any> {
  const result = await cli.json(args);
  if (result.code !== 0) throw new Error(`fieldops ${args.join(' ')}: ${result.stderr}`);
  return result.body;
}

/** A catalog, three events on the server, and a laptop that pulled them, with two patrols a round on the server. */
async function laptop(site: Site, cli: CliEnv, rounds: number): Promise<Laptop> {
  await site.api('POST', '/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' });
  await site.api('POST', '/api/v2.0/activity/eventtypes', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point' });
  await site.api('POST', '/api/v1.0/activity/patrols/types', { value: 'fence_patrol', display: 'Fence patrol' });
  const ids: string[] = [];
  for (const notes of ['a', 'b', 'c']) ids.push((await site.api('POST', EVENTS, { event_type: 'wildlife_sighting', time: new Date().toISOString(), location: { latitude: -1.28, longitude: 36.84 }, event_details: { notes } })).id);
  const login = await cli.login(site.url, 'admin', PASSWORD);
  if (login.code !== 0) throw new Error(`login: ${login.stderr}`);
  const sync = await cli.run(['sync']);
  if (sync.code !== 0) throw new Error(`sync: ${sync.stderr}`);
  const spare: string[] = [];
  for (let i = 0; i < 2 * rounds; i++) spare.push((await ok(cli, ['patrols', 'start', '--type', 'fence_patrol', '--title', `Fence ${i}`])).id);
  const push = await ok(cli, ['push']);
  if (push.sent !== spare.length) throw new Error(`patrols not pushed: ${JSON.stringify(push)}`);
  return { cli, events: { a: ids[0]!, b: ids[1]!, c: ids[2]! }, patrols: [], spare };
}

/** Six events of a datasheet (NDJSON), queued by one import. */
function sheet(lap: Laptop, name: string): string {
  const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ time: new Date(Date.UTC(2026, 10, 1, 6, i)).toISOString(), location: { latitude: -1.3, longitude: 36.8 + i / 1e4 }, event_details: { notes: `${name} ${i}` } }));
  const file = path.join(lap.cli.dir, `${name}.ndjson`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Queues the batch of the header's order; returns the created events' ids (the outbox ids). */
async function queue(lap: Laptop, round: string): Promise<string[]> {
  const { cli } = lap;
  await ok(cli, ['events', 'import', sheet(lap, `${round}-1`), '--type', 'wildlife_sighting']);
  await ok(cli, ['events', 'state', lap.events.b, 'active']);
  await ok(cli, ['events', 'state', lap.events.a, 'active']);
  await ok(cli, ['events', 'state', lap.events.a, 'resolved']);
  await ok(cli, ['events', 'import', sheet(lap, `${round}-2`), '--type', 'wildlife_sighting']);
  await ok(cli, ['events', 'state', lap.events.c, 'active']);
  for (const patrol of lap.patrols) {
    await ok(cli, ['patrols', 'note', patrol.slice(0, 8), `${round} note`]);
    await ok(cli, ['patrols', 'end', patrol.slice(0, 8)]);
  }
  const outbox = await ok(cli, ['outbox', '--all']) as { entries: Array<{ id: string; kind: string; status: string }> };
  const pending = outbox.entries.filter((e) => e.status === 'pending');
  if (pending.length !== 20) throw new Error(`expected 20 pending entries, got ${JSON.stringify(pending)}`);
  return pending.filter((e) => e.kind === 'event.create').map((e) => e.id);
}

/** Puts A, B and C back to `new` on the server, takes the next two patrols, and pulls. */
async function reset(site: Site, lap: Laptop): Promise<void> {
  for (const id of Object.values(lap.events)) await site.api('PATCH', `/api/v1.0/activity/event/${id}`, { state: 'new' });
  lap.patrols = lap.spare.splice(0, 2);
  const pull = await lap.cli.run(['pull']);
  if (pull.code !== 0) throw new Error(`pull: ${pull.stderr}`);
}

interface Revisions {
  events: Record<string, number>;
  patrols: number[];
}

async function revisions(site: Site, lap: Laptop): Promise<Revisions> {
  const count = async (kind: string, id: string) => (await site.api('GET', history(kind, id))).revisions.length as number;
  const events: Record<string, number> = {};
  for (const [name, id] of Object.entries(lap.events)) events[name] = await count('event', id);
  return { events, patrols: await Promise.all(lap.patrols.map((id) => count('patrol', id))) };
}

const notesOf = (site: Site, lap: Laptop) => Promise.all(lap.patrols.map(async (id) => ((await site.api('GET', `/api/v1.0/activity/patrols/${id}`)).notes ?? []) as Array<{ text: string }>));

/** Everything of the round on the server once, nothing pending or in conflict on the laptop. */
async function checkRound(t: Test, site: Site, lap: Laptop, round: string, created: string[], before: Revisions): Promise<void> {
  const outbox = (await lap.cli.json(['outbox', '--all'])).body as { counts: Record<string, number>; entries: Array<{ id: string; status: string; reason: string | null }> };
  t.equal(outbox.counts.pending ?? 0, 0, 'nothing pending');
  t.equal(outbox.counts.conflict ?? 0, 0, 'nothing in conflict');
  t.same(outbox.entries.filter((e) => e.status !== 'sent').map((e) => [e.id, e.status, e.reason]), [], 'every entry sent');
  const listed = (await site.api('GET', `${EVENTS}?page_size=4000`)).results as Array<{ id: string; event_details: { notes?: string } }>;
  const mine = listed.filter((e) => e.event_details?.notes?.startsWith(`${round}-`));
  t.same(mine.map((e) => e.id).sort(), [...created].sort(), '12 new events, each once');
  for (const id of created) t.same((await site.api('GET', history('event', id))).revisions, [], `event ${id.slice(0, 8)}: created, never updated`);
  const after = await revisions(site, lap);
  t.same(after, { events: { a: before.events.a! + 2, b: before.events.b! + 1, c: before.events.c! + 1 }, patrols: before.patrols.map((n) => n + 1) }, 'each update one revision: A twice (chained), B, C and each patrol end once');
  t.same((await site.api('GET', history('event', lap.events.a))).conflicts, [], 'no conflict of A with itself');
  t.equal((await site.api('GET', `/api/v1.0/activity/event/${lap.events.a}`)).state, 'resolved', 'A ends resolved');
  t.same((await site.api('GET', '/api/fieldops/v1/conflicts')).conflicts, [], 'no conflict rows');
  t.same((await notesOf(site, lap)).map((notes) => notes.filter((n) => n.text === `${round} note`).length), [1, 1], 'each note once');
}

/** A round: queue, push with `point` armed on `side`, the process dies, push again. */
async function round(t: Test, site: Site, lap: Laptop, side: 'server' | 'cli', point: string, replayed: number): Promise<void> {
  const name = point.replace(/[^a-z0-9]+/gi, '_');
  await reset(site, lap);
  const before = await revisions(site, lap);
  const created = await queue(lap, name);
  if (side === 'server') await site.start(point);
  const killed = await lap.cli.run(['push', '--json'], side === 'cli' ? { env: { FIELDOPS_CLI_CRASH_POINTS: point } } : {});
  if (side === 'cli') {
    t.equal(killed.code, null, 'the CLI was killed');
    t.match(killed.stderr, `crash point ${point.split('@')[0]}`);
  } else {
    t.not(killed.code, 0, 'the push stopped');
    t.equal(await site.serve().exited, null, 'the server was killed');
    t.match(site.serve().output(), `crash point ${point.split('@')[0]}`);
    await site.start();
  }
  site.batches.length = 0;
  const again = await lap.cli.json(['push']);
  t.equal(again.code, 0, again.stderr);
  // What committed before the kill is answered from the store, the rest is written now.
  t.same(site.batches.map((b) => b.statuses.filter((s) => s === 'replayed').length), [replayed], `${replayed} of 20 replayed`);
  t.same(again.body.conflicts, [], 'no conflict');
  t.same(again.body.rejected, [], 'nothing rejected');
  await checkRound(t, site, lap, name, created, before);
}

/** Where each side dies, and how many of the 20 entries the push after it finds committed. */
const POINTS: Array<['server' | 'cli', string, number]> = [
  ['server', 'push.entry.before-commit@3', 7],
  ['server', 'push.entry.after-commit@3', 8],
  ['server', 'push.entry.after-commit@4', 9],
  ['server', 'idempotency.before-answer', 20],
  ['cli', 'push.after-send', 20],
  ['cli', 'push.before-settle', 20],
];

t.setTimeout(900_000);

t.test('kill -9 of the server and of the CLI at every step of a batch', { timeout: 900_000 }, async (t) => {
  const site = await startSite(t);
  if (!site) return;
  const lap = await laptop(site, cliEnv(t, { FIELDOPS_RETRIES: '1' }), POINTS.length + 1);
  for (const [side, point, replayed] of POINTS) await t.test(`${side} killed at ${point}`, (t) => round(t, site, lap, side, point, replayed));

  await t.test('the link drops the answer of a batch: the retry is replayed', async (t) => {
    await reset(site, lap);
    const before = await revisions(site, lap);
    const created = await queue(lap, 'dropped');
    site.batches.length = 0;
    site.drop = (index) => index === 1;
    const push = await lap.cli.json(['push'], { env: { FIELDOPS_RETRIES: '3', FIELDOPS_RETRY_DELAY_MS: '0' } });
    site.drop = null;
    t.equal(push.code, 0, push.stderr);
    t.same(push.body.conflicts, []);
    t.same(site.batches.map((b) => b.dropped), [true, false], 'the answer dropped once, then the retry');
    t.ok(site.batches[0]!.statuses.every((s) => s !== 'replayed'), 'the first run wrote');
    t.same(new Set(site.batches[1]!.statuses), new Set(['replayed']), 'the retry is answered from the store');
    await checkRound(t, site, lap, 'dropped', created, before);
  });
});
