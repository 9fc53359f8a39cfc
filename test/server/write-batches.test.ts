import t from 'tap';
import { KeyedWriteBatches } from '../../server/db/write-batches.js';

/** A fake writer: records each batch it is given, and finishes a batch when told to. */
function writer(options: { failWhen?: (item: string) => boolean } = {}) {
  const batches: Array<{ key: string; items: string[]; finish(): void }> = [];
  let written = 0;
  const write = (key: string, items: readonly string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({
        key,
        items: [...items],
        finish: () => {
          if (items.some((item) => options.failWhen?.(item))) reject(new Error(`batch ${items.join(',')} refused`));
          else resolve(items.map((item) => `${item}#${++written}`));
        },
      });
    });
  return { batches, write };
}

/** Lets the batches' promise chains run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

t.test('an idle key writes at once; writes that arrive meanwhile go together, in arrival order', async (t) => {
  const w = writer();
  const batches = new KeyedWriteBatches(w.write);
  const first = batches.submit('tenant', 'a');
  t.equal(w.batches.length, 1, 'the first write starts synchronously');
  t.same(w.batches[0]!.items, ['a']);
  const rest = ['b', 'c', 'd'].map((item) => batches.submit('tenant', item));
  t.equal(w.batches.length, 1, 'nothing more starts while a write of the key is in flight');
  w.batches[0]!.finish();
  t.equal(await first, 'a#1');
  await settle();
  t.equal(w.batches.length, 2);
  t.same(w.batches[1]!.items, ['b', 'c', 'd'], 'one batch, in arrival order');
  w.batches[1]!.finish();
  t.same(await Promise.all(rest), ['b#2', 'c#3', 'd#4'], 'each caller gets its own result');
  // Idle again: the next write starts at once.
  const later = batches.submit('tenant', 'e');
  t.equal(w.batches.length, 3);
  w.batches[2]!.finish();
  t.equal(await later, 'e#5');
});

t.test('keys do not wait for each other', async (t) => {
  const w = writer();
  const batches = new KeyedWriteBatches(w.write);
  const one = batches.submit('tenant-1', 'a');
  const two = batches.submit('tenant-2', 'b');
  t.same(w.batches.map((b) => b.key), ['tenant-1', 'tenant-2'], 'both in flight at once');
  w.batches[1]!.finish();
  t.equal(await two, 'b#1', 'the second key finishes first');
  w.batches[0]!.finish();
  t.equal(await one, 'a#2');
});

t.test('a batch holds at most maxBatch writes; the rest wait for the next', async (t) => {
  const w = writer();
  const batches = new KeyedWriteBatches(w.write, 3);
  const all = ['a', 'b', 'c', 'd', 'e', 'f'].map((item) => batches.submit('k', item));
  w.batches[0]!.finish();
  await settle();
  t.same(w.batches[1]!.items, ['b', 'c', 'd']);
  w.batches[1]!.finish();
  await settle();
  t.same(w.batches[2]!.items, ['e', 'f']);
  w.batches[2]!.finish();
  t.same(await Promise.all(all), ['a#1', 'b#2', 'c#3', 'd#4', 'e#5', 'f#6']);
});

t.test('a failed batch is retried one write at a time: only the bad write fails', async (t) => {
  const w = writer({ failWhen: (item) => item === 'bad' });
  const batches = new KeyedWriteBatches(w.write);
  const first = batches.submit('k', 'a');
  const outcomes = ['b', 'bad', 'c'].map((item) => batches.submit('k', item).then((value) => ({ value }), (error: Error) => ({ error: error.message })));
  w.batches[0]!.finish();
  await first;
  await settle();
  t.same(w.batches[1]!.items, ['b', 'bad', 'c']);
  w.batches[1]!.finish();
  for (let i = 2; i < 5; i++) {
    await settle();
    t.equal(w.batches[i]!.items.length, 1, 'alone');
    w.batches[i]!.finish();
  }
  t.same(await Promise.all(outcomes), [{ value: 'b#2' }, { error: 'batch bad refused' }, { value: 'c#3' }]);
  // The key is usable afterwards.
  const next = batches.submit('k', 'd');
  w.batches[5]!.finish();
  t.equal(await next, 'd#4');
});

t.test('a single write that fails fails its caller, once', async (t) => {
  const w = writer({ failWhen: () => true });
  const batches = new KeyedWriteBatches(w.write);
  const only = batches.submit('k', 'x');
  w.batches[0]!.finish();
  await t.rejects(only, /batch x refused/);
  await settle();
  t.equal(w.batches.length, 1, 'not retried');
});
