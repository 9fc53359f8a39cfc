import fc from 'fast-check';
import t from 'tap';
import { sameValue } from '../../../protocol/merge-fields.js';
import { type HistoryStep, holdPaths, threeWayMerge } from '../../../server/domain/merge/three-way.js';

const map = (entries: Record<string, unknown>) => new Map(Object.entries(entries));

t.test('three-way merge: unit cases', async (t) => {
  const current = map({ title: 'HQ title', state: 'new', priority: 100 });
  const history: HistoryStep[] = [{ revision: 2, fields: { title: ['Old title', 'HQ title'] }, entryKey: null }];

  const disjoint = threeWayMerge({ current, history, mine: map({ state: 'active' }), policy: 'hold' });
  t.equal(disjoint.status, 'merged', 'a field the server did not change is merged');
  t.same([...disjoint.apply], [['state', 'active']]);
  t.same(disjoint.merged, ['title'], 'the server\'s change is named as kept');
  t.same(disjoint.conflicts, []);

  const noBaseChange = threeWayMerge({ current, history: [], mine: map({ state: 'active' }), policy: 'hold' });
  t.equal(noBaseChange.status, 'applied', 'base = current: applied');

  for (const policy of ['hold', 'server_wins', 'last_writer_wins'] as const) {
    const same = threeWayMerge({ current, history, mine: map({ title: 'Laptop title' }), policy });
    t.equal(same.status, 'conflict', `${policy}: the same field is a conflict`);
    t.match(same.conflicts[0], { field: 'title', base: 'Old title', mine: 'Laptop title', theirs: 'HQ title', theirsRevision: 2 });
    t.equal(same.conflicts[0]!.status, policy === 'hold' ? 'open' : 'settled');
    t.equal(same.apply.has('title'), policy === 'last_writer_wins', `${policy}: mine written only by last_writer_wins`);
  }

  const echo = threeWayMerge({ current, history, mine: map({ title: 'Old title', state: 'new' }), policy: 'hold' });
  t.equal(echo.status, 'merged', 'sending the base value back (a PUT of what was read) is an echo, not a conflict');
  t.same([...echo.apply], [], 'and writes nothing');

  const agreed = threeWayMerge({ current, history, mine: map({ title: 'HQ title' }), policy: 'hold' });
  t.same(agreed.conflicts, [], 'both sides set the same value: no conflict');

  const back = threeWayMerge({ current: map({ title: 'A' }), history: [{ revision: 2, fields: { title: ['A', 'B'] }, entryKey: null }, { revision: 3, fields: { title: ['B', 'A'] }, entryKey: null }], mine: map({ title: 'C' }), policy: 'hold' });
  t.equal(back.status, 'applied', 'a change undone since the base is no change');

  const replay = threeWayMerge({ current, history: [...history, { revision: 3, fields: { state: ['new', 'active'] }, entryKey: 'k1' }], mine: map({ state: 'active' }), policy: 'hold', entryKey: 'k1' });
  t.equal(replay.status, 'replayed', 'a history row of this entry key: replayed');
  t.same([...replay.apply], []);

  const chained = threeWayMerge({ current: map({ state: 'resolved' }), history: [], mine: map({ state: 'active' }), policy: 'hold', chainLost: { state: 'active' } });
  t.same(chained.conflicts, [], 'a chained entry repeating what its predecessor lost is an echo, not a self-conflict');
  const chainedChange = threeWayMerge({ current: map({ state: 'resolved' }), history: [], mine: map({ state: 'new' }), policy: 'hold', chainLost: { state: 'active' } });
  t.match(chainedChange.conflicts, [{ field: 'state', base: 'active', mine: 'new', theirs: 'resolved', theirsRevision: null }], 'a lost field changed again conflicts against the predecessor\'s value');

  const held = holdPaths(disjoint, ['state'], current);
  t.equal(held.status, 'conflict', 'holding a written path makes it an open conflict');
  t.match(held.conflicts, [{ field: 'state', mine: 'active', theirs: 'new', status: 'open' }]);
  t.same([...held.apply], []);
  const lww = threeWayMerge({ current, history, mine: map({ title: 'Laptop title' }), policy: 'last_writer_wins' });
  t.match(holdPaths(lww, ['title'], current).conflicts, [{ field: 'title', status: 'open', applied: false }], 'a held last-writer-wins conflict is reopened');
});

/** Random records over a few paths, with a random history since the base and random laptop edits. */
const paths = ['title', 'state', 'priority', 'event_details.a', 'event_details.b', 'segments.s1.end_time'];
const value = fc.oneof(fc.constantFrom('x', 'y', 'z', null), fc.integer({ min: 0, max: 3 }));
const scenario = fc.record({
  base: fc.dictionary(fc.constantFrom(...paths), value),
  serverEdits: fc.array(fc.dictionary(fc.constantFrom(...paths), value), { maxLength: 4 }),
  mine: fc.dictionary(fc.constantFrom(...paths), value),
  policy: fc.constantFrom('hold' as const, 'server_wins' as const, 'last_writer_wins' as const),
});

/** Replays server edits onto the base, writing history rows as the services do. */
function serverSide(base: Record<string, unknown>, edits: Array<Record<string, unknown>>) {
  const state = new Map(Object.entries(base));
  const history: HistoryStep[] = [];
  edits.forEach((edit, index) => {
    const fields: Record<string, [unknown, unknown]> = {};
    for (const [path, after] of Object.entries(edit)) {
      const before = state.get(path) ?? null;
      if (!sameValue(before, after)) fields[path] = [before, after];
      state.set(path, after);
    }
    history.push({ revision: index + 2, fields, entryKey: null });
  });
  return { state, history };
}

t.test('three-way merge: properties (fast-check)', async (t) => {
  const seed = 20261126;
  t.comment(`fast-check seed ${seed}`);
  fc.assert(fc.property(scenario, ({ base, serverEdits, mine, policy }) => {
    const { state, history } = serverSide(base, serverEdits);
    const mineMap = new Map(Object.entries(mine));
    const result = threeWayMerge({ current: state, history, mine: mineMap, policy });
    const final = new Map(state);
    for (const [path, v] of result.apply) final.set(path, v);
    const theirs = [...new Set(history.flatMap((step) => Object.keys(step.fields)))].filter((path) => !sameValue(base[path] ?? null, state.get(path) ?? null));
    // Disjoint fields never conflict.
    if (!Object.keys(mine).some((path) => theirs.includes(path))) {
      if (result.conflicts.length !== 0) return false;
    }
    // Nothing dropped: each laptop value is in the result or kept as a conflict's mine (or was an echo of the base).
    for (const [path, v] of mineMap) {
      const kept = sameValue(final.get(path) ?? null, v) || result.conflicts.some((c) => c.field === path && sameValue(c.mine, v)) || sameValue(base[path] ?? null, v);
      if (!kept) return false;
    }
    // ...and each server value is in the result or kept as a conflict's theirs.
    for (const path of theirs) {
      const v = state.get(path) ?? null;
      if (!sameValue(final.get(path) ?? null, v) && !result.conflicts.some((c) => c.field === path && sameValue(c.theirs, v))) return false;
    }
    // Paths the laptop did not name keep the server's value.
    for (const [path, v] of state) if (!mineMap.has(path) && !sameValue(final.get(path), v)) return false;
    return true;
  }), { seed, numRuns: 500 });
  t.pass('500 random merges: disjoint fields never conflict, nothing is dropped');
});
