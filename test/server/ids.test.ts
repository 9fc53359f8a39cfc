import t from 'tap';
import { isUuid, timeOrderedUuid } from '../../server/domain/ids.js';

const millisOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

t.test('a version 7 UUID carrying the millisecond', async (t) => {
  const now = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
  const id = timeOrderedUuid(now);
  t.ok(isUuid(id), id);
  t.equal(id[14], '7', 'version 7');
  t.match(id[19], /[89ab]/, 'RFC 9562 variant');
  t.equal(millisOf(id), now, 'the first 48 bits are the milliseconds');
  const before = Date.now();
  const byClock = millisOf(timeOrderedUuid());
  t.ok(byClock >= before && byClock <= Date.now(), 'without a time, the clock\'s');
});

t.test('ids sort in creation order and never repeat: many in one millisecond, and a clock that steps back', async (t) => {
  const base = Date.UTC(2030, 0, 1);
  const ids: string[] = [];
  for (let i = 0; i < 10000; i++) ids.push(timeOrderedUuid(base)); // past 4096 in one millisecond
  for (let i = 0; i < 1000; i++) ids.push(timeOrderedUuid(base - 5000)); // the clock stepped back
  for (let i = 0; i < 1000; i++) ids.push(timeOrderedUuid(base + 10 + Math.floor(i / 100)));
  t.equal(new Set(ids).size, ids.length, 'unique');
  let ordered = true;
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) ordered = false;
  t.ok(ordered, 'each id sorts after the one before');
  t.ok(millisOf(ids[9999]!) - base <= 3, 'overflowing the sequence borrows the next milliseconds, no more');
  t.ok(ids.every((id) => isUuid(id) && id[14] === '7'), 'all well-formed');
});

t.test('the random part varies', async (t) => {
  const tails = new Set(Array.from({ length: 2000 }, () => timeOrderedUuid(Date.UTC(2031, 0, 1)).slice(19)));
  t.equal(tails.size, 2000, 'no two ids share their last 62 random bits');
});
