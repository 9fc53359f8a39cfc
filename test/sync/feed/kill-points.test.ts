/**
 * The requirement, end to end on both databases with a real `fieldops serve` and the real
 * CLI: a pull killed with SIGKILL at any point and run again re-sends at most 10% of what it had
 * received, and the mirror is always consistent (SQLite's integrity check; whole pages only).
 * Kill points: mid-download (half a page's body on the wire), between pages, mid-repair (held on
 * /sync/ranges, then on /sync/records) and at un-synchronised moments of a longer pull (several
 * kills in a row, some landing while a page is parsed or applied). Definitions: kill-support.ts.
 *
 * NOTE: a page arrives whole before any of it is committed, so a kill may cost one page. The
 * CLI sizes its pages at a ninth of what the run received (sync/feed/run-feed.ts pageLimit,
 * FIRST_PAGE_CHANGES at first; tested on 4,000 records in run-feed.test.ts); this site is too
 * small for that to reach 10%, so the proxy makes pages small (20, then 8 changes) for the bound,
 * and the last case checks the CLI's own first pages. Pages are applied in segments at the
 * server's resume points (apply-segments.test.ts, feed-resume-points.test.ts).
 */
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { cliEnv, type CliEnv } from '../../helpers/cli-env.js';
import { spawnCli } from '../../helpers/cli-process.js';
import { dialect } from '../../helpers/database.js';
import { takeHorizonTurn } from '../../helpers/horizon-turn.js';
import { type FeedProxy, startFeedProxy } from './feed-proxy.js';
import { startRealServer } from './real-server.js';
import { FIRST_PAGE_CHANGES } from '../../../sync/feed/run-feed.js';
import { CELLS, SCOPE, coveredByCursor, eventKeys, held, lastCursorSent, readMirror, recordKey, seedSite, sentAgain, sentIn, type MirrorState } from './kill-support.js';

const PASSWORD = 'Kill-Points-1';
const EVENTS = 420;
const SYNC = '/api/fieldops/v1/sync/';
const PULL = ['pull', '--scope', SCOPE];

t.test(`a pull killed at any point (${dialect})`, async (t) => {
  await takeHorizonTurn(t);
  const server = await startRealServer(t, PASSWORD);
  if (!server) return;
  const { url, api } = server;
  const ids = await seedSite(api, EVENTS);

  /** A pull (or verify) run to its end; pulled again while PostgreSQL's horizon keeps it `not_verified`. */
  const completed = async (t: Test, env: CliEnv, args: string[]) => {
    let received = 0;
    for (let attempt = 0; ; attempt++) {
      const result = await env.json(args);
      t.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      const feed = result.body.feed ?? {};
      received += feed.received ?? 0;
      if (feed.checkpoint !== 'not_verified' || attempt >= 5) return { body: result.body, feed, received };
      args = PULL;
    }
  };
  const laptop = async (t: Test, target: string) => {
    const env = cliEnv(t, { FIELDOPS_RETRIES: '1' });
    t.equal((await env.login(target, 'admin', PASSWORD)).code, 0);
    return env;
  };
  /** Starts the real CLI, waits for `moment` (a hold, a page written), kills it with SIGKILL. */
  const killAt = async (t: Test, env: CliEnv, args: string[], moment: () => Promise<void>) => {
    const child = spawnCli([...args, '--json'], env.env);
    let killing = false;
    const ended = child.exited.then(() => {
      if (!killing) throw new Error(`fieldops ${args.join(' ')} ended before it was killed: ${child.stderr()}`);
    });
    await Promise.race([moment(), ended]);
    killing = true;
    child.child.kill('SIGKILL');
    t.equal((await child.exited).signal, 'SIGKILL', 'killed');
  };
  const sameAsServer = (t: Test, mirror: MirrorState, what: string) => {
    t.equal(mirror.integrity, 'ok', `${what}: integrity_check`);
    t.same([...held(mirror)].sort(), [...reference.memberships.keys()].sort(), `${what}: the server's set, no more, no less`);
    t.same(mirror.memberships, reference.memberships, `${what}: with the server's memberships`);
  };
  /** The mirror holds whole pages only: exactly what its stored cursor covers. Answers how many records. */
  const wholePages = (t: Test, mirror: MirrorState, what: string) => {
    t.equal(mirror.integrity, 'ok', `${what}: integrity_check`);
    const covered = coveredByCursor(mirror, reference);
    t.same(covered.rows, covered.expected, `${what}: rows are exactly the records the stored cursor covers`);
    t.same(covered.memberships, covered.wanted, `${what}: each with all its memberships, no others`);
    return covered.expected.length;
  };
  /**
   * The bound for a rerun that completed, both ways (kill-support.ts): its received minus
   * what was missing, and the records the proxy sent it that it had sent to the killed runs.
   */
  const atMostTenth = (t: Test, what: string, m: { received: number; missing: number; killedReceived: number; sentAgain: number }) => {
    const resent = m.received - m.missing;
    t.ok(resent >= 0 && resent <= m.killedReceived / 10, `${what}: re-sent ${resent} (${m.received} received − ${m.missing} missing) ≤ 10% of the ${m.killedReceived} the killed run received`);
    t.ok(m.sentAgain <= m.killedReceived / 10, `${what}: by the proxy's log, ${m.sentAgain} records sent again ≤ 10% of ${m.killedReceived}`);
  };

  // The server's set: a laptop pulling straight from the server, verified.
  const direct = await laptop(t, url);
  t.match((await completed(t, direct, PULL)).feed, { checkpoint: 'verified', resets: [] }, 'the reference pull is verified');
  const reference = readMirror(direct.mirror);
  t.same([...held(reference)].filter((key) => key.startsWith('event\n')).sort(), eventKeys(ids), 'the server\'s set: every event created through the API');
  const total = reference.memberships.size;

  // Twelve pages of 20 answered whole; then the thirteenth is cut half-way through its body, or
  // its request is never answered. Either way the mirror holds the twelve, committed.
  const holds = [
    { what: 'mid-download: half a page on the wire', hold: (proxy: FeedProxy) => ((proxy.holdMidBody = 12), proxy.nextHold()), release: (proxy: FeedProxy) => (proxy.holdMidBody = null) },
    { what: 'between pages: the next request held', hold: (proxy: FeedProxy) => ((proxy.holdAfter = 12), proxy.held), release: (proxy: FeedProxy) => (proxy.holdAfter = null) },
  ];
  for (const { what, hold, release } of holds) {
    t.test(`${what}, then kill -9`, async (t) => {
      const proxy = await startFeedProxy(t, url);
      const env = await laptop(t, proxy.url);
      proxy.limit = 20;
      proxy.epoch = 1;
      await killAt(t, env, PULL, () => hold(proxy));
      const killed = readMirror(env.mirror);
      t.equal(wholePages(t, killed, 'after the kill'), 12 * 20, 'the twelve pages answered whole, none of the thirteenth');
      release(proxy);
      proxy.epoch = 2;
      const rerun = await completed(t, env, PULL);
      t.match(rerun.feed, { resets: [], checkpoint: 'verified' });
      atMostTenth(t, what, { received: rerun.received, missing: total - held(killed).size, killedReceived: sentIn(proxy, 1).length, sentAgain: sentAgain(proxy, 2, 1) });
      sameAsServer(t, readMirror(env.mirror), 'after the rerun');
    });
  }

  t.test('mid-repair: held on /sync/ranges, then on /sync/records', async (t) => {
    const proxy = await startFeedProxy(t, url);
    const env = await laptop(t, proxy.url);
    t.match((await completed(t, env, PULL)).feed, { checkpoint: 'verified' });
    const perCell = 10;
    /** Deletes `perCell` event rows of each cell by hand (memberships kept): every cell key then differs. */
    const damage = (skip: number) => {
      const mirror = new Database(env.mirror);
      const gone = ids.filter((_, i) => i >= skip * CELLS && i < (skip + perCell) * CELLS);
      const remove = mirror.prepare('delete from pulled_events where id = ?');
      for (const id of gone) remove.run(id);
      mirror.close();
      return eventKeys(gone);
    };
    const repairAfterKill = async (what: string, killed: string[], rerunArgs: string[], gone: string[], hold: { prefix: string; after: number }, restoredCells: number, epoch: number) => {
      proxy.holdPath = { prefix: SYNC + hold.prefix, after: proxy.answered(SYNC + hold.prefix) + hold.after };
      proxy.epoch = epoch;
      await killAt(t, env, killed, () => proxy.nextHold());
      const after = readMirror(env.mirror);
      t.equal(after.integrity, 'ok', `${what}: integrity_check`);
      const restored = sentIn(proxy, epoch, ['records']);
      t.equal(restored.length, restoredCells * perCell, `${what}: ${restoredCells} cell(s) repaired before the kill, one request each`);
      const missing = gone.filter((key) => !restored.includes(key));
      t.same([...after.rows].filter((key) => key.startsWith('event\n')).sort(), eventKeys(ids).filter((key) => !missing.includes(key)), `${what}: each repair batch committed whole, the others not at all`);
      t.same(after.memberships, reference.memberships, `${what}: memberships untouched`);
      proxy.holdPath = null;
      proxy.epoch = epoch + 1;
      const rerun = await completed(t, env, rerunArgs);
      const fetched = sentIn(proxy, epoch + 1);
      t.same(fetched.sort(), [...missing].sort(), `${what}: the rerun fetched exactly what was still missing`);
      atMostTenth(t, what, { received: fetched.length, missing: missing.length, killedReceived: sentIn(proxy, epoch).length, sentAgain: sentAgain(proxy, epoch + 1, epoch) });
      return rerun.body;
    };
    const first = await repairAfterKill('verify --repair held on its third /sync/ranges', ['verify', '--repair'], PULL, damage(0), { prefix: 'ranges', after: 2 }, 2, 1);
    t.match(first.feed, { checkpoint: 'repaired', repairs: Array(CELLS - 2).fill({ missing: perCell, extra: 0, stale: 0, repaired: true }) });
    t.match((await completed(t, env, PULL)).feed, { received: 0, checkpoint: 'verified' }, 'and the next pull is verified');
    const second = await repairAfterKill('pull held on its second /sync/records', PULL, ['verify', '--repair'], damage(perCell), { prefix: 'records', after: 1 }, 1, 3);
    t.match(second, { ok: true, repaired: { scopes: Array(CELLS - 1).fill({ missing: perCell, repaired: true }) } });
    t.match((await completed(t, env, PULL)).feed, { received: 0, checkpoint: 'verified' }, 'and the next pull is verified');
    sameAsServer(t, readMirror(env.mirror), 'after the repairs');
  });

  t.test('mid-apply: kills at un-synchronised moments of a longer pull, then a rerun', async (t) => {
    const proxy = await startFeedProxy(t, url);
    const env = await laptop(t, proxy.url);
    proxy.limit = 8;
    // k pages written whole to the run, then a short delay: the kill lands while the client reads,
    // parses, applies or commits a page, or waits for the next one. Eleven pages or more, so that
    // one page (the most a kill may cost) is under 10% of what the run received.
    const kills = [{ pages: 11, delayMs: 0 }, { pages: 12, delayMs: 3 }, { pages: 13, delayMs: 9 }];
    let before = 0;
    for (const [index, kill] of kills.entries()) {
      const epoch = index + 1;
      proxy.epoch = epoch;
      const target = proxy.written + kill.pages;
      await killAt(t, env, PULL, async () => {
        await proxy.pagesWritten(target);
        await new Promise((resolve) => setTimeout(resolve, kill.delayMs));
      });
      const mirror = readMirror(env.mirror);
      const now = wholePages(t, mirror, `kill ${epoch}`);
      t.ok(now >= before + (kill.pages - 1) * 8, `kill ${epoch}: at least the pages before the last one written are kept (${before} → ${now})`);
      t.comment(`kill ${epoch} landed ${mirror.cursor === lastCursorSent(proxy, epoch) ? 'after the last page written was committed' : 'with a page written but not committed (read, parsed or applied: rolled back)'}`);
      if (epoch > 1) {
        const again = sentAgain(proxy, epoch, 1);
        const previous = sentIn(proxy, epoch - 1).length;
        t.ok(again <= previous / 10, `kill ${epoch}: re-sent ${again} ≤ 10% of the ${previous} run ${epoch - 1} received`);
      }
      before = now;
    }
    const last = kills.length + 1;
    proxy.epoch = last;
    const rerun = await completed(t, env, PULL);
    t.match(rerun.feed, { resets: [], checkpoint: 'verified' });
    atMostTenth(t, 'the final rerun', { received: rerun.received, missing: total - before, killedReceived: sentIn(proxy, last - 1).length, sentAgain: sentAgain(proxy, last, 1) });
    sameAsServer(t, readMirror(env.mirror), 'after the rerun');
    t.equal(new Set(proxy.answers.flatMap((a) => a.records.map((r) => recordKey(r.kind, r.id)))).size, total, 'every record of the server was sent');
  });

  t.test("the CLI's own page sizes: killed with a page whole on the wire, the rerun re-sends at most that page", async (t) => {
    const proxy = await startFeedProxy(t, url);
    const env = await laptop(t, proxy.url);
    proxy.epoch = 1;
    await killAt(t, env, PULL, () => proxy.pagesWritten(2));
    const killed = readMirror(env.mirror);
    const kept = wholePages(t, killed, 'after the kill');
    const asked = proxy.answers.filter((a) => a.epoch === 1 && a.endpoint === 'changes').map((a) => a.records.length);
    t.same(asked.slice(0, 2), [FIRST_PAGE_CHANGES, FIRST_PAGE_CHANGES], 'the first pages are small (sync/feed/run-feed.ts pageLimit)');
    t.ok(kept >= FIRST_PAGE_CHANGES, `the first page is committed (${kept} held)`);
    proxy.epoch = 2;
    const rerun = await completed(t, env, PULL);
    t.match(rerun.feed, { resets: [], checkpoint: 'verified' });
    const resent = rerun.received - (total - held(killed).size);
    t.ok(resent >= 0 && resent <= FIRST_PAGE_CHANGES, `re-sent ${resent}: at most the one page on the wire (early in a run, pages are ${FIRST_PAGE_CHANGES}; later a ninth of what was received)`);
    sameAsServer(t, readMirror(env.mirror), 'after the rerun');
  });
});
