import t from 'tap';
import { CATALOG_KEYS, KEY_PATTERNS, MAX_KEY_LENGTH, cellKeys, dayKeys, isKeyPattern, isScopeKey, keys } from '../../protocol/scope-keys.js';

const uuid = '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';

t.test('scope keys: the grammar accepts every documented shape', async (t) => {
  const valid = [
    'ev:all', 'ev:day:2026-11-25', 'ev:cat:security', 'ev:cat:security%20ops', `ev:by:${uuid}`, 'ev:cell:-1:36', 'ev:cell:-90:-180', 'ev:cell:89:179', `ev:team:${uuid}`,
    'pa:all', 'pa:open', 'pa:day:2026-01-01', `pa:by:${uuid}`, `pa:team:${uuid}`,
    `su:group:${uuid}`, 'su:nogroup', ...CATALOG_KEYS,
  ];
  for (const key of valid) t.ok(isScopeKey(key), key);
});

t.test('scope keys: refused', async (t) => {
  const invalid = [
    '', 'ev', 'ev:', 'ev:ALL', 'ev:all ', ' ev:all', 'ev:day:2026-1-1', 'ev:day:26-11-25', 'ev:day:2026-11-25T00', 'ev:cat:', 'ev:cat:a b', 'ev:cat:a:b',
    'ev:cell:1', 'ev:cell:100:1', 'ev:cell:1:1000', 'ev:cell:1.5:2', 'ev:cell:a:b', 'pa:closed', 'pa:day:', 'su:group:', 'su:group:a b', 'su:*', 'cat:*',
    'cat:event_types_v1', 'cat:users', 'us:all', 'xx:all', 'ev:by:' + 'a'.repeat(65), 'ev:cat:' + 'c'.repeat(101),
  ];
  for (const key of invalid) t.notOk(isScopeKey(key), JSON.stringify(key));
});

t.test('scope keys: length bounds', async (t) => {
  t.equal(MAX_KEY_LENGTH, 120);
  t.ok(isScopeKey('ev:cat:' + 'c'.repeat(100)), 'a 100-character category value');
  t.notOk(isScopeKey('ev:cat:' + 'c'.repeat(101)), '101 characters');
  t.ok(isScopeKey('ev:by:' + 'u'.repeat(64)), 'a 64-character id');
  t.notOk(isScopeKey('ev:by:' + 'u'.repeat(65)));
  t.ok(isScopeKey('su:group:' + 'g'.repeat(64)));
  t.notOk(isScopeKey('su:group:' + 'g'.repeat(65)));
  t.ok(['ev:cat:' + 'c'.repeat(100), 'su:group:' + 'g'.repeat(64)].every((k) => k.length <= MAX_KEY_LENGTH), 'the longest valid keys are within MAX_KEY_LENGTH');
});

t.test('patterns are not keys', async (t) => {
  t.same([...KEY_PATTERNS], ['su:*', 'cat:*']);
  t.ok(isKeyPattern('su:*'));
  t.ok(isKeyPattern('cat:*'));
  t.notOk(isKeyPattern('ev:*'), 'no event pattern: ask for ev:all');
  t.notOk(isKeyPattern('su:group:x'));
});

t.test('key builders percent-encode values into valid keys', async (t) => {
  t.equal(keys.eventCategory('security ops/α'), 'ev:cat:security%20ops%2F%CE%B1');
  t.ok(isScopeKey(keys.eventCategory('security ops/α')));
  t.equal(keys.eventCategory('a:b'), 'ev:cat:a%3Ab', 'a colon is encoded');
  t.ok(isScopeKey(keys.eventCategory('a:b')));
  t.equal(keys.eventDay('2026-11-25T23:59:59.999Z'), 'ev:day:2026-11-25');
  t.equal(keys.patrolDay('2026-11-25T00:00:00+00:00'), 'pa:day:2026-11-25');
  t.equal(keys.eventCell(-0.5, 36.9), 'ev:cell:-1:36', 'floor, not truncation');
  t.equal(keys.eventCell(0, -0.0001), 'ev:cell:0:-1');
  t.equal(keys.eventCell(90, 180), 'ev:cell:89:179', 'the pole and the antimeridian fall into the last cell');
  t.ok(cellKeys(179, 89, 180, 90, 10)?.includes(keys.eventCell(90, 180)), 'a box reaching the corner covers an event there');
  t.equal(keys.eventBy(uuid), `ev:by:${uuid}`);
  t.equal(keys.patrolBy(uuid), `pa:by:${uuid}`);
  t.equal(keys.eventTeam(uuid), `ev:team:${uuid}`);
  t.equal(keys.patrolTeam(uuid), `pa:team:${uuid}`);
  t.equal(keys.subjectGroup(uuid), `su:group:${uuid}`);
  for (const key of [keys.eventCell(-89.9, -179.9), keys.eventCell(89.9, 179.9), keys.eventTeam(uuid)]) t.ok(isScopeKey(key), key);
});

t.test('dayKeys: the UTC days ending today, newest first', async (t) => {
  t.same(dayKeys('ev:day', 3, Date.UTC(2026, 0, 1, 23, 59)), ['ev:day:2026-01-01', 'ev:day:2025-12-31', 'ev:day:2025-12-30'], 'across a year end');
  t.same(dayKeys('pa:day', 2, Date.UTC(2024, 2, 1, 0, 0)), ['pa:day:2024-03-01', 'pa:day:2024-02-29'], 'a leap day');
  t.same(dayKeys('ev:day', 1, Date.UTC(2026, 10, 25, 0, 0, 0, 0)), ['ev:day:2026-11-25'], 'midnight UTC is the new day');
  t.same(dayKeys('ev:day', 0, Date.now()), []);
  const month = dayKeys('ev:day', 30, Date.UTC(2026, 10, 25, 12));
  t.equal(month.length, 30);
  t.equal(new Set(month).size, 30, 'no duplicates');
  t.equal(month[29], 'ev:day:2026-10-27');
  t.ok(month.every(isScopeKey));
});

t.test('cellKeys: the 1° cells covering a box', async (t) => {
  t.same(cellKeys(36.5, -1.5, 37.2, -0.2, 100), ['ev:cell:-2:36', 'ev:cell:-2:37', 'ev:cell:-1:36', 'ev:cell:-1:37']);
  t.same(cellKeys(36.5, -1.5, 36.6, -1.4, 100), ['ev:cell:-2:36'], 'a box inside one cell');
  t.same(cellKeys(36, -2, 37, -1, 100), ['ev:cell:-2:36', 'ev:cell:-2:37', 'ev:cell:-1:36', 'ev:cell:-1:37'], 'edges on whole degrees include the next cell');
  t.same(cellKeys(179.5, 89.5, 180, 90, 10), ['ev:cell:89:179'], 'north and east edges clamp to the last cell');
  t.equal(cellKeys(-180, -90, 180, 90, 100), null, 'over the limit: null');
  t.equal(cellKeys(10, 10, 5, 12, 100), null, 'west after east: null');
  t.equal(cellKeys(10, 12, 11, 10, 100), null, 'south after north: null');
  const limit = cellKeys(0, 0, 9.5, 9.5, 100);
  t.equal(limit?.length, 100, 'exactly at the limit');
  t.equal(cellKeys(0, 0, 10, 9.5, 100), null, 'one column over');
  t.ok(cellKeys(-180, -90, -170, -80, 200)!.every(isScopeKey), 'the south-west corner keys are valid');
});
