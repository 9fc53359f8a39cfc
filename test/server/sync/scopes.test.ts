import t from 'tap';
import { isScopeKey } from '../../../protocol/scope-keys.js';
import { scopeKeysOf } from '../../../server/domain/sync/scopes.js';

t.test('event keys: all, day (UTC), category, creator, 1° cell, teams', async (t) => {
  const keys = scopeKeysOf({ kind: 'event', id: 'e', time: '2026-11-20T23:30:00.000Z', category: 'security', latitude: -1.5, longitude: 36.9, createdBy: 'u1', teams: ['g2', 'g1'] });
  t.same(keys, ['ev:all', 'ev:by:u1', 'ev:cat:security', 'ev:cell:-2:36', 'ev:day:2026-11-20', 'ev:team:g1', 'ev:team:g2']);
  t.same(scopeKeysOf({ kind: 'event', id: 'e', time: null, category: null, latitude: 1, longitude: null, createdBy: null, teams: [] }), ['ev:all'], 'no location, no cell');
});

t.test('values are percent-encoded; a key the grammar cannot hold is left out, never stored broken', async (t) => {
  t.same(scopeKeysOf({ kind: 'event', id: 'e', time: null, category: 'a b:c', latitude: null, longitude: null, createdBy: null, teams: [] }), ['ev:all', 'ev:cat:a%20b%3Ac']);
  const long = scopeKeysOf({ kind: 'event', id: 'e', time: null, category: 'é'.repeat(50), latitude: 91, longitude: 0, createdBy: null, teams: [] });
  t.same(long, ['ev:all'], 'an over-long category and an impossible latitude give no key');
  for (const key of long) t.ok(isScopeKey(key));
});

t.test('patrol keys: open only while open; creator and user leaders; teams of subject leaders', async (t) => {
  t.same(scopeKeysOf({ kind: 'patrol', id: 'p', state: 'open', startTime: '2026-11-01T00:00:00.000Z', users: ['u1', 'u2'], teams: ['g'] }), ['pa:all', 'pa:by:u1', 'pa:by:u2', 'pa:day:2026-11-01', 'pa:open', 'pa:team:g']);
  t.same(scopeKeysOf({ kind: 'patrol', id: 'p', state: 'done', startTime: null, users: [], teams: [] }), ['pa:all']);
});

t.test('subject and catalog keys', async (t) => {
  t.same(scopeKeysOf({ kind: 'subject', id: 's', groups: [] }), ['su:nogroup']);
  t.same(scopeKeysOf({ kind: 'subject', id: 's', groups: ['b', 'a', 'a'] }), ['su:group:a', 'su:group:b']);
  t.same(scopeKeysOf({ kind: 'patrol_type', id: 'x' }), ['cat:patrol_types']);
  t.same(scopeKeysOf({ kind: 'event_type', id: 'x' }), ['cat:event_types']);
  t.same(scopeKeysOf({ kind: 'event_category', id: 'x' }), ['cat:event_categories']);
  t.same(scopeKeysOf({ kind: 'choice', id: 'x' }), ['cat:choices']);
});
