import t from 'tap';
import { setImmediate as nextCheckPhase } from 'node:timers/promises';
import { CoalescedReads } from '../../server/db/coalesced-reads.js';

/** A fake "database": a value that writes move, and reads that finish when told to. */
function store() {
  let committed = 0;
  const started: Array<{ snapshot: number; finish(): void }> = [];
  return {
    write: () => ++committed,
    reads: started,
    read: () =>
      new Promise<number>((resolve) => {
        const snapshot = committed;
        started.push({ snapshot, finish: () => resolve(snapshot) });
      }),
  };
}

t.test('callers of one loop iteration share one read', async (t) => {
  const db = store();
  const reads = new CoalescedReads<number>();
  const answers = Promise.all([reads.get('k', db.read), reads.get('k', db.read), reads.get('k', db.read)]);
  t.equal(db.reads.length, 0, 'nothing is read before the check phase');
  await nextCheckPhase();
  t.equal(db.reads.length, 1, 'one read for three callers');
  db.reads[0]!.finish();
  t.same(await answers, [0, 0, 0]);
});

t.test('a caller never gets a read that started before it asked', async (t) => {
  const db = store();
  const reads = new CoalescedReads<number>();
  const early = reads.get('k', db.read);
  await nextCheckPhase();
  t.equal(db.reads.length, 1, 'the first read is in flight');
  // A write is acknowledged, then a request arrives: it must see the write.
  db.write();
  const late = reads.get('k', db.read);
  const alsoLate = reads.get('k', db.read);
  db.reads[0]!.finish();
  t.equal(await early, 0, 'the early caller gets the read it waited for');
  await nextCheckPhase();
  t.equal(db.reads.length, 2, 'the late callers got a read of their own');
  db.reads[1]!.finish();
  t.equal(await late, 1, 'which sees the write');
  t.equal(await alsoLate, 1, 'shared by both late callers');
});

t.test('at most maxInFlight reads of a key run at once; the overflow gathers into one', async (t) => {
  const db = store();
  const reads = new CoalescedReads<number>(2);
  const first = reads.get('k', db.read);
  await nextCheckPhase();
  const second = reads.get('k', db.read);
  await nextCheckPhase();
  t.equal(db.reads.length, 2, 'two overlapping reads of one key');
  db.write();
  const waiting = [reads.get('k', db.read), reads.get('k', db.read)];
  await nextCheckPhase();
  await nextCheckPhase();
  t.equal(db.reads.length, 2, 'a third waits for a free slot');
  db.reads[1]!.finish();
  t.equal(await second, 0);
  await nextCheckPhase();
  t.equal(db.reads.length, 3, 'and starts once one settles (in the next check phase)');
  t.equal(db.reads[2]!.snapshot, 1, 'after its callers arrived');
  db.reads[2]!.finish();
  t.same(await Promise.all(waiting), [1, 1]);
  db.reads[0]!.finish();
  t.equal(await first, 0);
});

t.test('keys are independent, and a failed read fails only its own callers', async (t) => {
  const reads = new CoalescedReads<string>();
  let calls = 0;
  const failing = reads.get('broken', async () => {
    calls++;
    throw new Error('database away');
  });
  const fine = reads.get('fine', () => 'ok');
  await t.rejects(failing, /database away/);
  t.equal(await fine, 'ok', 'a synchronous read works too');
  t.equal(await reads.get('broken', () => 'recovered'), 'recovered', 'the next call reads again');
  t.equal(calls, 1);
  await t.rejects(reads.get('sync-throw', () => { throw new Error('thrown synchronously'); }), /thrown synchronously/, 'a read that throws rejects');
});
