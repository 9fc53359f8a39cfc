/**
 * The ways of missing writes (issue 25), each against real `fieldops serve` processes on
 * one database and the real CLI, on both databases. After each, the mirror must hold exactly the
 * server's records, ids and versions (test/helpers/feed-truth.ts):
 *
 * - a slow pull: small pages, and events created and edited between the pages of one pull;
 * - clock skew: a second serve process whose clock is 3 minutes behind (faketime) writes after
 *   the laptop's last pull;
 * - a note and a file added to a patrol the laptop holds;
 * - PostgreSQL: a transaction held open (with an xid, its change appended at commit) while a
 *   second process commits an event: the pull in between must not claim a verified checkpoint
 *   that skips the held write, and after the commit the next pull holds everything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { openDatabase } from '../../../server/db/knex.js';
import { createStore } from '../../../server/db/store.js';
import { recordChanges } from '../../../server/domain/sync/record-changes.js';
import { cliEnv, type CliEnv } from '../../helpers/cli-env.js';
import { createTestDatabaseFor, dialect } from '../../helpers/database.js';
import { mirrorHeld, mirrorRecord, serverHeld, truthKnex } from '../../helpers/feed-truth.js';
import { startPagingProxy } from '../../helpers/paging-proxy.js';
import { takeHorizonTurn } from '../../helpers/horizon-turn.js';
import { serveProcess, type ServeProcess } from '../../helpers/serve-process.js';

const PASSWORD = 'Loss-Cases-Feed-1';
const EVENTS = '/api/v1.0/activity/events';
const PATROLS = '/api/v1.0/activity/patrols';
const FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
// The 8-byte PNG signature and an IHDR chunk header: enough for sniffing.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

function apiOf(url: string, token: string): Api {
  return async (method, route, body) => {
    const form = body instanceof FormData;
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (!form && body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(url + route, { method, headers, body: body === undefined ? undefined : form ? body : JSON.stringify(body) });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

function stop(t: Test, serve: ServeProcess) {
  t.teardown(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
  });
}

t.test(`writes the older pull missed reach the mirror (${dialect})`, async (t) => {
  await takeHorizonTurn(t);
  const db = await createTestDatabaseFor(t);
  if (!db) return;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-loss-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PATROL_SWEEP_SECONDS: '0', FIELDOPS_AUTH_CACHE_MS: '0' };
  const serve = serveProcess(env);
  stop(t, serve);
  const url = await serve.url;
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const api = apiOf(url, token);
  const truth = truthKnex(db);
  t.teardown(() => truth.destroy());

  await api('POST', '/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' });
  await api('POST', '/api/v2.0/activity/eventtypes', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point' });
  await api('POST', `${PATROLS}/types`, { value: 'foot', display: 'Foot' });
  const newEvent = async (through: Api = api) =>
    (await through('POST', EVENTS, { event_type: 'wildlife_sighting', time: new Date(Date.now() - 5 * 60_000).toISOString(), location: { latitude: -1.28, longitude: 36.84 }, event_details: {} })) as { id: string; created_at?: string; updated_at?: string };
  const ids: string[] = [];
  for (let i = 0; i < 9; i++) ids.push((await newEvent()).id);
  const patrol = await api('POST', PATROLS, { title: 'Fence line', patrol_segments: [{ patrol_type: 'foot', time_range: { start_time: new Date().toISOString() } }] });

  const proxy = await startPagingProxy(t, url);
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(proxy.url, 'admin', PASSWORD)).code, 0, 'the laptop logs in');
  const pull = async (t: Test, command: string[] = ['pull'], c: CliEnv = cli) => {
    const result = await c.json(command);
    t.equal(result.code, 0, `${command.join(' ')}: ${result.stderr}`);
    t.equal(result.body.feed?.mode, 'feed', 'pulled through the change feed');
    return result.body.feed as { pages: number; received: number; checkpoint: string };
  };
  const sameAsServer = async (t: Test, what: string) => {
    t.same(mirrorHeld(cli.mirror, 'event'), await serverHeld(truth, 'event'), `${what}: the mirror holds exactly the server's events, ids and versions`);
    t.same(mirrorHeld(cli.mirror, 'patrol'), await serverHeld(truth, 'patrol'), `${what}: and its patrols`);
  };

  await t.test('(a) a slow pull with creates and edits between its pages misses nothing', async (t) => {
    proxy.limit = 3;
    proxy.delayMs = 100;
    const during: string[] = [];
    const edited: string[] = [];
    proxy.beforeAnswer = async (page) => {
      if (page > 4) return;
      // Two new events (their ids may sort before the snapshot's position) and an edit of an
      // event created before the pull (possibly on a page already read).
      for (let i = 0; i < 2; i++) during.push((await newEvent()).id);
      const target = ids[page - 1]!;
      await api('PATCH', `${EVENTS}/${target}`, { title: `Edited during page ${page}` });
      edited.push(target);
    };
    // The first run makes the mirror: the catalogs' GETs, then the records through the feed.
    const first = await pull(t, ['sync', '--records']);
    proxy.beforeAnswer = null;
    t.ok(first.pages > 4, `the pull paged slowly (${first.pages} pages of 3)`);
    t.equal(during.length, 8, 'eight events were created while it ran');
    await pull(t);
    await sameAsServer(t, 'after the pull and one more');
    for (const id of edited) t.match(mirrorRecord(cli.mirror, 'event', id), { title: /^Edited during page \d$/ }, `the edit of ${id} arrived`);
    proxy.limit = null;
    proxy.delayMs = 0;
  });

  await t.test('(b) writes through a server process whose clock is 3 minutes behind', async (t) => {
    if (!fs.existsSync(FAKETIME_LIB)) return void t.pass('skipped', { skip: `${FAKETIME_LIB} is missing (apt-get install faketime): cannot skew a process clock` });
    await pull(t);
    const skewed = serveProcess({ ...env, LD_PRELOAD: FAKETIME_LIB, FAKETIME: '-3m', FAKETIME_DONT_FAKE_MONOTONIC: '1' });
    stop(t, skewed);
    const behind = apiOf(await skewed.url, token);
    const before = Date.now();
    const created = await newEvent(behind);
    const detail = await behind('GET', `${EVENTS}/${created.id}`);
    for (const field of ['created_at', 'updated_at'] as const) {
      const lag = before - Date.parse(detail[field]);
      t.ok(lag > 150_000 && lag < 210_000, `the skew took: ${field} is ${Math.round(lag / 1000)} s behind the real clock`);
    }
    await behind('PATCH', `${EVENTS}/${ids[5]}`, { title: 'Edited three minutes in the past' });
    const pulled = await pull(t);
    t.ok(pulled.received >= 2, `the next pull received the skewed writes (${pulled.received} changes)`);
    t.ok(Object.hasOwn(mirrorHeld(cli.mirror, 'event'), created.id), 'the event created through the skewed process is held');
    t.match(mirrorRecord(cli.mirror, 'event', ids[5]!), { title: 'Edited three minutes in the past' });
    await sameAsServer(t, 'after the skewed writes');
  });

  await t.test('(c) a note and a file added to a held patrol reach the mirror', async (t) => {
    await pull(t);
    t.ok(mirrorRecord(cli.mirror, 'patrol', patrol.id), 'the laptop holds the open patrol');
    await api('POST', `${PATROLS}/${patrol.id}/notes`, { text: 'Fence cut at km 12' });
    const form = new FormData();
    form.append('filecontent.file', new Blob([PNG]), 'fence-cut.png');
    form.append('comment', 'Photo of the cut');
    await api('POST', `${PATROLS}/${patrol.id}/files`, form);
    const pulled = await pull(t);
    t.ok(pulled.received >= 1, 'the next pull received the patrol');
    const record = mirrorRecord(cli.mirror, 'patrol', patrol.id)!;
    t.match(record.notes, [{ text: 'Fence cut at km 12' }], 'the note is in the pulled patrol');
    t.match(record.files, [{ filename: 'fence-cut.png', comment: 'Photo of the cut' }], 'and the file');
    await sameAsServer(t, 'after the note and the file');
  });

  await t.test('(d) a transaction held open across a pull (PostgreSQL)', async (t) => {
    if (dialect !== 'postgres') return void t.pass('skipped', { skip: 'SQLite writers are serialised: a held write lock only delays writers (test/server/sync/feed-horizon.test.ts)' });
    await pull(t);
    const second = serveProcess(env);
    stop(t, second);
    const other = apiOf(await second.url, token);
    // An in-process unit of work on the same database, as a server's write runs: it takes an
    // xid at its first write and appends its change just before it commits, long after.
    const database = openDatabase(db.config);
    t.teardown(() => database.close());
    const store = createStore(database, undefined, { beforeCommit: (repos, changes) => recordChanges(repos, changes, Date.now()) });
    const tenantId = String(((await truth('tenants').select('id').where({ name: 'default' }).first()) as { id: string }).id);
    let release: () => void = () => {};
    const latch = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => {};
    const begun = new Promise<void>((resolve) => (started = resolve));
    const held = store.transaction(async (repos) => {
      await repos.events.touch(tenantId, ids[7]!, Date.now());
      started();
      await latch;
    });
    await begun;
    const late = (await newEvent(other)).id;
    const during = await pull(t);
    t.not(during.checkpoint, 'verified', `no verified checkpoint while the transaction is held (${during.checkpoint})`);
    t.notOk(Object.hasOwn(mirrorHeld(cli.mirror, 'event'), late), 'the event committed above the horizon is not served yet');
    const heldVersion = mirrorHeld(cli.mirror, 'event')[ids[7]!];
    release();
    await held;
    const after = await pull(t);
    t.equal(after.checkpoint, 'verified', 'the next pull verifies');
    const now = mirrorHeld(cli.mirror, 'event');
    t.ok(Object.hasOwn(now, late), 'the event of the second process arrived');
    t.ok((now[ids[7]!] ?? 0) > (heldVersion ?? 0), 'and the held write, at a newer version');
    await sameAsServer(t, 'after the held transaction committed');
  });
});
