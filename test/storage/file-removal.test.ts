import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { Readable } from 'node:stream';
import t from 'tap';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/knex.js';
import type { Store } from '../../server/domain/ports.js';
import { CLAIM_STALE_MS, REMOVAL_BUDGET_MS } from '../../server/storage/file-sweeper.js';
import { dialect, unavailableReason } from '../helpers/database.js';
import { startS3Server } from './s3-server.js';
import { GRACE_MS, sha, processOver, setup } from './removal-harness.js';

t.test(`removing the bytes of deleted files, on disk and in a bucket (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) {
    t.pass('skipped', { skip: reason });
    return;
  }
  const s3 = await startS3Server();
  t.teardown(() => s3.close());

  for (const kind of ['disk', 's3'] as const) {
    await t.test(`${kind}: a deleted file's bytes go; shared bytes stay until their last reference goes; another tenant's are theirs`, async (t) => {
      const f = await setup(t, kind, s3);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const south = await f.tenant('south');
      const theirs = await f.event(south);
      const shared = randomBytes(2000);
      const alone = randomBytes(1000);
      const a = await f.main.upload(f.north, one, shared);
      const b = await f.main.upload(f.north, two, shared);
      const c = await f.main.upload(south, theirs, shared);
      const d = await f.main.upload(f.north, one, alone);
      t.equal(await f.leases(), 0, 'every lease was given back');
      t.same(await f.queued(), [], 'nothing queued: everything uploaded is referred to');

      await f.main.deleteFile(f.north, one, d, alone);
      t.notOk(await f.present(alone), 'a deleted file\'s bytes are gone');
      await f.main.deleteFile(f.north, one, a, shared);
      t.ok(await f.present(shared), 'kept: another event refers to the same bytes');
      await f.main.deleteEvent(f.north, two, [shared]);
      t.ok(await f.present(shared), 'kept: another tenant refers to the same bytes');
      t.same(await f.read(shared), shared, 'and they read back whole');
      t.same(await f.queued(), [], 'a key still referred to leaves the queue');
      await f.main.deleteFile(south, theirs, c, shared);
      t.notOk(await f.present(shared), 'the last reference gone: the bytes are gone');
      t.same(await f.queued(), []);
      t.ok(b);

      const again = await f.main.upload(f.north, one, shared);
      t.ok(await f.present(shared), 'the same bytes uploaded again are stored again');
      t.same(await f.read(shared), shared);
      t.ok(again);
    });

    await t.test(`${kind}: a removal under way when an upload of the same bytes arrives: the upload waits, then stores them again`, async (t) => {
      const f = await setup(t, kind, s3);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3000);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      // The sweeper claims the key, finds nothing using it, and is held just before removing.
      const held = f.main.hooked.holdNextRemove();
      const removal = f.main.sweeper.released([sha(data)]);
      await held.entered;
      t.ok(await f.present(data), 'claimed, not yet removed');
      const waited = f.waitSeen(data).then(() => 'waited' as const);
      const upload = f.main.upload(f.north, two, data);
      // Without the wait, the upload would find the bytes still there and refer to them.
      t.equal(await Promise.race([upload.then(() => 'referred' as const), waited]), 'waited', 'the upload waits for the removal under way');
      held.open();
      await removal;
      const id = await upload;
      t.ok(id, 'the upload then completes');
      t.ok(await f.present(data), 'its bytes are in the store: the upload stored them again after the removal');
      t.same(await f.read(data), data);
      t.same(await f.queued(), []);
      t.equal(await f.leases(), 0);
    });

    await t.test(`${kind}: a removal that hangs is aborted at its deadline: its claim released, the key still queued for the next sweep`, async (t) => {
      const f = await setup(t, kind, s3);
      const one = await f.event(f.north);
      const data = randomBytes(1500);
      const file = await f.main.upload(f.north, one, data);
      const held = f.main.hooked.holdNextRemove();
      const removal = f.main.deleteFile(f.north, one, file, data);
      await held.entered;
      f.main.stopwatch.advance(REMOVAL_BUDGET_MS - 1);
      t.notOk(held.aborted(), 'not before its budget is spent');
      f.main.stopwatch.advance(1);
      t.ok(held.aborted(), 'the store is told to give the removal up (the bucket\'s request aborted)');
      held.open();
      await removal;
      t.ok(await f.present(data), 'the aborted removal removed nothing');
      t.equal(await f.main.repository.removalClaim(sha(data)), null, 'its claim is released');
      t.same(await f.queued(), [sha(data)], 'the key stays queued');
      t.match(f.main.log, [{ msg: /could not remove a deleted file's bytes/ }]);
      t.match(await f.main.sweeper.sweepOnce(), { removed: 1 }, 'the next sweep removes the bytes');
      t.notOk(await f.present(data));
    });

    await t.test(`${kind}: an upload that outwaits a stalled removal takes its claim over, then stores; the removal, aborted at its deadline, leaves the bytes`, async (t) => {
      const f = await setup(t, kind, s3);
      const other = openDatabase(f.testDb.config);
      t.teardown(() => other.close());
      const sweeping = processOver(other, f.raw, f.clock);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3100);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      const held = sweeping.hooked.holdNextRemove();
      const removal = sweeping.sweeper.removeIfUnused(sha(data)).then(() => null, (error: Error) => error);
      await held.entered;
      t.ok(await f.main.repository.removalClaim(sha(data)), 'the sweeper holds its claim, its removal under way, stalled');
      const waited = f.waitSeen(data);
      const upload = f.main.upload(f.north, two, data);
      await waited;
      // The upload's own time: it has waited longer than a live sweeper's removal may last.
      f.main.stopwatch.advance(CLAIM_STALE_MS + 1);
      t.ok(await upload, 'the upload stops waiting and completes');
      t.equal(await f.main.repository.removalClaim(sha(data)), null, 'it took the claim over: the sweeper holds it no more');
      t.same(await f.queued(), [sha(data)], 'the key stays queued');
      t.match(f.main.log, [{ msg: /took over a file removal that outlived its claim/, sha256: sha(data) }]);
      // The sweeper's deadline, long passed in real time (in which both clocks run together).
      sweeping.stopwatch.advance(REMOVAL_BUDGET_MS);
      t.ok(held.aborted(), 'the stalled removal is aborted');
      held.open();
      t.match(await removal, { name: 'TimeoutError' }, 'and fails');
      t.ok(await f.present(data), 'the bytes the upload referred to are there');
      t.same(await f.read(data), data);
      t.match(await f.main.sweeper.sweepOnce(), { removed: 0 }, 'the next sweep claims the key afresh, finds it referred to');
      t.same(await f.queued(), []);
      t.equal(await f.leases(), 0);
    });

    await t.test(`${kind}: a removal that outlasts its claim (its store ignored the deadline) cannot settle it: it reports the overrun, the key stays queued`, async (t) => {
      const f = await setup(t, kind, s3);
      const other = openDatabase(f.testDb.config);
      t.teardown(() => other.close());
      const sweeping = processOver(other, f.raw, f.clock);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3200);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      const held = sweeping.hooked.holdNextRemove({ ignoreSignal: true });
      const removal = sweeping.sweeper.removeIfUnused(sha(data));
      await held.entered;
      const waited = f.waitSeen(data);
      const upload = f.main.upload(f.north, two, data);
      await waited;
      f.main.stopwatch.advance(CLAIM_STALE_MS + 1);
      await upload;
      held.open();
      t.equal(await removal, true, 'the late removal went ahead (what the deadline exists to prevent)');
      t.match(sweeping.log, [{ level: 50, msg: /a file removal outlasted its claim/, sha256: sha(data) }], 'and is reported');
      t.same(await f.queued(), [sha(data)], 'the queue row was not settled by the sweeper that lost its claim');
    });

    await t.test(`${kind}: an upload between storing its bytes and referring to them keeps them from a concurrent removal`, async (t) => {
      const f = await setup(t, kind, s3);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3000);
      const file = await f.main.upload(f.north, one, data);
      let removalDone = false;
      const second = await f.main.upload(f.north, two, data, async () => {
        // The bytes are committed (found in the store already), the row not written yet: the
        // only reference is deleted now, and the sweeper runs.
        await f.main.deleteFile(f.north, one, file, data);
        removalDone = true;
        t.ok(await f.present(data), 'the lease kept the bytes');
      });
      t.ok(removalDone);
      t.ok(await f.present(data), 'still there once the upload refers to them');
      t.same(await f.read(data), data);
      t.same(await f.queued(), [], 'referred to: not queued');
      await f.main.deleteFile(f.north, two, second, data);
      t.notOk(await f.present(data), 'deleted in turn: gone');
    });

    await t.test(`${kind}: a refused upload's bytes are queued when its lease ends; a crashed upload's when its lease goes stale`, async (t) => {
      const f = await setup(t, kind, s3);
      const one = await f.event(f.north);
      const refused = randomBytes(500);
      await t.rejects(
        f.main.upload(f.north, one, refused, async () => {
          throw new Error('409: refused inside the transaction');
        }),
      );
      t.ok(await f.present(refused), 'stored before the transaction');
      t.same(await f.queued(), [sha(refused)], 'queued when the lease was given back');
      t.match(await f.main.sweeper.sweepOnce(), { removed: 1 });
      t.notOk(await f.present(refused), 'removed by the sweep');

      const crashed = randomBytes(600);
      const staged = await f.main.leased.stage(Readable.from([crashed]), { maxBytes: 1000 });
      await staged.commit(); // and the process dies: no row, no discard
      t.match(await f.main.sweeper.sweepOnce(), { removed: 0 });
      t.ok(await f.present(crashed), 'a live lease keeps the bytes');
      f.clock.advance(GRACE_MS + 1);
      t.match(await f.main.sweeper.sweepOnce(), { removed: 1 });
      t.notOk(await f.present(crashed), 'a lease not renewed for the grace period is a dead process\'s: its bytes go');
      t.equal(await f.leases(), 0);
    });

    await t.test(`${kind}: two processes on one database: one removes; a dead sweeper's claim is taken over once stale`, async (t) => {
      const f = await setup(t, kind, s3);
      const other = openDatabase(f.testDb.config);
      t.teardown(() => other.close());
      const second = processOver(other, f.raw, f.clock);
      const one = await f.event(f.north);
      const data = randomBytes(700);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      const results = await Promise.all([f.main.sweeper.removeIfUnused(sha(data)), second.sweeper.removeIfUnused(sha(data)), second.sweeper.removeIfUnused(sha(data))]);
      t.equal(results.filter(Boolean).length, 1, 'exactly one removal');
      t.notOk(await f.present(data));
      t.same(await f.queued(), []);

      const orphan = randomBytes(800);
      const id = await f.main.upload(f.north, one, orphan);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, id));
      t.ok(await f.main.repository.claimRemoval(sha(orphan), randomUUID(), f.clock.now(), f.clock.now() - CLAIM_STALE_MS), 'a sweeper claims it, then dies');
      t.match(await second.sweeper.sweepOnce(), { removed: 0 }, 'a live claim is left alone');
      t.ok(await f.present(orphan));
      f.clock.advance(CLAIM_STALE_MS + 1);
      t.match(await second.sweeper.sweepOnce(), { removed: 1 }, 'a stale claim is taken over');
      t.notOk(await f.present(orphan));
    });

    await t.test(`${kind}: bytes nothing refers to from before (deleted earlier, copied in) are found by the store's one-time scan`, async (t) => {
      const f = await setup(t, kind, s3);
      const one = await f.event(f.north);
      const kept = randomBytes(900);
      await f.main.upload(f.north, one, kept);
      // Written straight into the store, as a deletion before this release left them.
      const orphan = randomBytes(901);
      await f.raw.put(Readable.from([orphan]), { maxBytes: 1000 });
      const first = await f.main.sweeper.sweepOnce();
      t.same(first, { removed: 0, orphansQueued: 1 }, 'found, but written within the grace period: not removed yet');
      t.ok(await f.present(orphan));
      // The clock was read before the bytes were written: past the grace period with a margin.
      f.clock.advance(GRACE_MS + 60_000);
      t.same(await f.main.sweeper.sweepOnce(), { removed: 1, orphansQueued: 0 }, 'removed once the grace period has passed; the store is not scanned again');
      t.notOk(await f.present(orphan));
      t.ok(await f.present(kept), 'referred-to bytes are never queued by the scan');
    });
  }
});

t.test('FIELDOPS_FILE_SWEEP_SECONDS and FIELDOPS_FILE_GRACE_SECONDS', async (t) => {
  const base = { FIELDOPS_DATA_DIR: os.tmpdir() };
  t.match(loadConfig(base), { fileSweepSeconds: 300, fileGraceSeconds: 3600 }, 'defaults');
  t.match(loadConfig({ ...base, FIELDOPS_FILE_SWEEP_SECONDS: '0', FIELDOPS_FILE_GRACE_SECONDS: '60' }), { fileSweepSeconds: 0, fileGraceSeconds: 60 });
  t.throws(() => loadConfig({ ...base, FIELDOPS_FILE_GRACE_SECONDS: '5' }), /FIELDOPS_FILE_GRACE_SECONDS must be an integer between 60 and 604800/, 'a grace shorter than an upload could take is refused');
  t.throws(() => loadConfig({ ...base, FIELDOPS_FILE_SWEEP_SECONDS: 'often' }), /FIELDOPS_FILE_SWEEP_SECONDS/);
});
