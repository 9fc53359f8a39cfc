/**
 * kill -9 at every step of an upload (issue 26 §6, §10; both databases): the real `fieldops
 * serve` and the real CLI, each killed by a crash point (sync/testing/crash-points.ts,
 * server/testing/crash-points.ts) while pushing an event recorded offline with a 5 MiB photo
 * (2 MiB chunks: FIELDOPS_UPLOAD_CHUNK_BYTES). Then the server is restarted if it was the one
 * killed, and a second push without the point must leave: exactly one file on the event whose
 * bytes hash to the original's sha256, no staged copy under `<mirror>.files/`, nothing pending.
 * And one push of a 24 MiB photo through a link cut at 25, 50 and 75% of its uplink: it
 * completes with at most size + 5 MiB of uplink, and the upload is created by one POST only.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startLinkProxy } from '../../bench/lib/link-proxy.js';
import { cliEnv, type CliEnv } from '../helpers/cli-env.js';
import { createTestDatabase, serverDataDir, unavailableReason } from '../helpers/database.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';

const MiB = 1024 * 1024;
const PASSWORD = 'upload-kill-password-1';
const EVENTS = '/api/v1.0/activity/events';
const DETAILS = JSON.stringify({ species: 'elephant' });
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Site {
  /** Where the server listens: the same port across restarts. */
  url: string;
  serve(): ServeProcess;
  start(points?: string): Promise<void>;
  api(method: string, path: string, body?: unknown): Promise<any>;
  bytes(url: string): Promise<Buffer>;
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
  const port = await freePort();
  let serve: ServeProcess | null = null;
  let token = '';
  const alive = () => serve !== null && serve.child.exitCode === null && serve.child.signalCode === null;
  t.teardown(async () => {
    if (alive()) {
      serve!.child.kill('SIGTERM');
      await serve!.exited;
    }
  });
  const site: Site = {
    url: `http://127.0.0.1:${port}`,
    serve: () => serve!,
    async start(points = '') {
      if (alive()) {
        serve!.child.kill('SIGTERM');
        await serve!.exited;
      }
      serve = serveProcess(
        { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_CRASH_POINTS: points, LOG_LEVEL: 'info' },
        ['--port', String(port), '--host', '127.0.0.1'],
      );
      await serve.url;
      const login = await fetch(`${site.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
      token = ((await login.json()) as { access_token: string }).access_token;
    },
    async api(method, path, body) {
      const response = await fetch(site.url + path, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
    async bytes(url) {
      const response = await fetch(new URL(url, site.url), { headers: { Authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    },
  };
  await site.start();
  await site.api('POST', '/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' });
  await site.api('POST', '/api/v2.0/activity/eventtypes', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point' });
  return site;
}

/** A laptop logged in (through `url`), synced, with an event and its photo of `size` bytes recorded offline. */
async function laptop(t: Test, url: string, size: number): Promise<{ cli: CliEnv; event: string; photo: Buffer }> {
  const cli = cliEnv(t, { FIELDOPS_UPLOAD_CHUNK_BYTES: String(2 * MiB) });
  const login = await cli.login(url, 'admin', PASSWORD);
  if (login.code !== 0) throw new Error(`login: ${login.stderr}`);
  const sync = await cli.run(['sync']);
  if (sync.code !== 0) throw new Error(`sync: ${sync.stderr}`);
  const photo = randomBytes(size);
  const file = path.join(cli.dir, 'herd.jpg');
  fs.writeFileSync(file, photo);
  const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', file]);
  if (made.code !== 0) throw new Error(`events new: ${made.stderr}`);
  return { cli, event: made.body.id, photo };
}

/** After the last push: one file on the event with the photo's bytes, no staged copy, nothing pending. */
async function settled(t: Test, site: Site, cli: CliEnv, event: string, photo: Buffer) {
  const body = await site.api('GET', `${EVENTS}/${event}`);
  const files = (body.data ?? body).files as Array<Record<string, any>>;
  t.equal(files.length, 1, 'exactly one file on the event');
  const link = files[0]?.url ?? files[0]?.file?.url ?? files[0]?.links?.self;
  t.ok(link, `the file has a download link (${JSON.stringify(files[0])})`);
  if (link) t.equal(sha(await site.bytes(link)), sha(photo), 'its bytes hash to the original sha256');
  const staged = `${cli.mirror}.files`;
  t.same(fs.existsSync(staged) ? fs.readdirSync(staged) : [], [], 'the staged copy is gone');
  const outbox = await cli.json(['outbox']);
  t.equal(outbox.code, 0, outbox.stderr);
  const pending = ((outbox.body.entries ?? []) as Array<{ status: string }>).filter((e) => e.status !== 'sent');
  t.same(pending, [], 'nothing pending in the outbox');
}

const CLI_POINTS = ['upload.after-create', 'upload.after-chunk', 'upload.before-offset-save'];
const SERVER_POINTS = ['upload.mid-patch', 'upload.before-finish', 'upload.after-store'];

t.test('kill -9 at every step of an upload, then push again', async (t) => {
  const site = await startSite(t);
  if (!site) return;
  for (const point of CLI_POINTS) {
    await t.test(`the CLI killed at ${point}`, async (t) => {
      const { cli, event, photo } = await laptop(t, site.url, 5 * MiB);
      const killed = await cli.run(['push'], { env: { FIELDOPS_CLI_CRASH_POINTS: point }, timeoutMs: 60_000 });
      t.equal(killed.code, null, 'killed (no exit code)');
      t.match(killed.stderr, `crash point ${point}`);
      const again = await cli.run(['push'], { timeoutMs: 60_000 });
      t.equal(again.code, 0, again.stderr);
      await settled(t, site, cli, event, photo);
    });
  }
  for (const point of SERVER_POINTS) {
    await t.test(`the server killed at ${point}`, async (t) => {
      await site.start(point);
      const { cli, event, photo } = await laptop(t, site.url, 5 * MiB);
      const failed = await cli.run(['push'], { env: { FIELDOPS_RETRIES: '1' }, timeoutMs: 60_000 });
      await site.serve().exited;
      t.match(site.serve().output(), `crash point ${point}`, 'the server died at the point');
      t.not(failed.code, 0, 'that push failed');
      await site.start();
      const again = await cli.run(['push'], { timeoutMs: 60_000 });
      t.equal(again.code, 0, `${again.stdout}\n${again.stderr}\n${site.serve().output().split('\n').filter((l) => /uploads|error/.test(l)).join('\n')}`);
      await settled(t, site, cli, event, photo);
    });
  }
});

t.test('a 24 MiB photo over a link cut at 25, 50 and 75% of its uplink', async (t) => {
  const site = await startSite(t);
  if (!site) return;
  const target = new URL(site.url);
  const proxy = await startLinkProxy({ host: target.hostname, port: Number(target.port) });
  t.teardown(() => proxy.close());
  const size = 24 * MiB;
  const { cli, event, photo } = await laptop(t, proxy.origin, size);
  const start = proxy.bytesUp;
  const marks = [0.25, 0.5, 0.75].map((share) => start + Math.round(size * share));
  proxy.cutAfterUp(marks[0]!);
  // Each cut arms the next (the proxy knows one at a time).
  const watch = setInterval(() => {
    const next = marks[proxy.cuts];
    if (proxy.cuts > 0 && next !== undefined && proxy.bytesUp < next) proxy.cutAfterUp(next);
  }, 2);
  t.teardown(() => clearInterval(watch));
  const logBefore = site.serve().output().length;
  // 1 MiB PATCHes: a cut loses what was in flight on the loopback link (socket buffers of several
  // MiB), at most a chunk; with 8 MiB chunks that is up to ~5 MiB a cut (see the report).
  const pushed = await cli.run(['push'], { timeoutMs: 120_000, env: { FIELDOPS_UPLOAD_CHUNK_BYTES: String(MiB) } });
  clearInterval(watch);
  t.equal(pushed.code, 0, pushed.stderr);
  t.equal(proxy.cuts, 3, 'the link was cut three times');
  const up = proxy.bytesUp - start;
  t.ok(up <= size + 5 * MiB, `uplink ${(up / MiB).toFixed(1)} MiB <= size + 5 MiB`);
  const posts = site.serve().output().slice(logBefore).split('\n').filter((line) => /"method":"POST"/.test(line) && /\/uploads/.test(line));
  // The first POST (with the first chunk) was cut before its answer: one bodiless repeat with the
  // same Idempotency-Key asks where it is (the client cannot know the Location otherwise).
  t.ok(posts.length <= 2, `the upload created by one POST, its answer asked for once at most (${posts.length} POSTs)`);
  t.equal(posts.filter((line) => /"status":201/.test(line)).length, posts.length, 'every POST answered the same creation');
  await settled(t, site, cli, event, photo);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
