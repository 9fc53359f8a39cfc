/**
 * The reference usage summariser (issue 28): the exact semantics other helpers' tests compare
 * the server's incremental summaries with (types.ts, schema/compat/summarise.ts).
 */
import t from 'tap';
import { summariseEvents } from '../../schema/compat/index.js';
import { MAX_VALUES } from '../../schema/compat/summarise.js';

t.test('kinds, values once per event, array elements once per distinct element', async (t) => {
  const s = summariseEvents('hwc', [
    { a: 'x', n: 3, m: ['p', 'q', 'p'], o: { deep: 'ignored' } },
    { a: 'x', n: 2.5, m: ['p'], z: null },
    { a: 'y', b: true, m: [1, 'p', [2], { k: 1 }] },
    {},
  ]);
  t.equal(s.event_type, 'hwc');
  t.equal(s.events, 4);
  t.same(Object.keys(s.fields), ['a', 'b', 'm', 'n', 'o', 'z'], 'every top-level key, sorted');
  t.same(s.fields.a, { events: 3, kinds: { string: 3 }, values: [{ value: 'x', events: 2 }, { value: 'y', events: 1 }], values_complete: true, min_length: 1, max_length: 1 });
  t.same(s.fields.n, { events: 2, kinds: { integer: 1, number: 1 }, values: [{ value: 2.5, events: 1 }, { value: 3, events: 1 }], values_complete: true, min: 2.5, max: 3 });
  // 'p' held by three events (twice in the first: once), 1 by one; the nested array and object are not looked into
  t.same(s.fields.m, { events: 3, kinds: { array: 3 }, values: [{ value: 'p', events: 3 }, { value: 'q', events: 1 }, { value: 1, events: 1 }], values_complete: true, min: 1, max: 1, min_length: 1, max_length: 1 });
  t.same(s.fields.z, { events: 1, kinds: { null: 1 }, values: [], values_complete: true }, 'null is a kind, not a value');
  t.same(s.fields.o, { events: 1, kinds: { object: 1 }, values: [], values_complete: true });
  t.same(s.fields.b!.values, [{ value: true, events: 1 }]);
});

t.test('ties ordered by canonical value (JSON text, code units): strings, numbers, false, true', async (t) => {
  const s = summariseEvents('t', [{ v: 'b' }, { v: true }, { v: 'a' }, { v: '1' }, { v: 1 }, { v: false }, { v: 10 }, { v: -2 }, { v: 'B' }]);
  t.same(s.fields.v!.values.map((v) => v.value), ['1', 'B', 'a', 'b', -2, 1, 10, false, true]);
});

t.test('long strings make values incomplete; lengths count them', async (t) => {
  const long = 'x'.repeat(201);
  const s = summariseEvents('t', [{ v: long }, { v: 'x'.repeat(200) }, { w: ['ok', long] }]);
  t.same(s.fields.v!.values, [{ value: 'x'.repeat(200), events: 1 }]);
  t.equal(s.fields.v!.values_complete, false);
  t.equal(s.fields.v!.max_length, 201);
  t.equal(s.fields.w!.values_complete, false, 'a long element too');
  t.equal(summariseEvents('t', [{ v: 'x'.repeat(200) }]).fields.v!.values_complete, true, '200 is still listed');
});

t.test('at most 1,000 values, most frequent first', async (t) => {
  const events = Array.from({ length: MAX_VALUES + 5 }, (_, i) => ({ v: i }));
  events.push({ v: 7 }, { v: 7 }, { v: 3 });
  const s = summariseEvents('t', events);
  const f = s.fields.v!;
  t.equal(f.values.length, MAX_VALUES);
  t.equal(f.values_complete, false);
  t.same(f.values.slice(0, 3), [{ value: 7, events: 3 }, { value: 3, events: 2 }, { value: 0, events: 1 }]);
  t.equal(f.min, 0);
  t.equal(f.max, MAX_VALUES + 4, 'min/max over every value, listed or not');
  t.equal(summariseEvents('t', events.slice(0, MAX_VALUES)).fields.v!.values_complete, true, 'exactly 1,000 is complete');
});

t.test('a __proto__ key is data', async (t) => {
  const s = summariseEvents('t', [JSON.parse('{"__proto__": "x"}') as Record<string, unknown>]);
  t.ok(Object.hasOwn(s.fields, '__proto__'));
  t.equal(s.fields['__proto__']!.events, 1);
});
