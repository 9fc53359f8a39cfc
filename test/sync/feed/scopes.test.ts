/** `--scope` values to scope keys (sync/feed/scopes.ts): the default, each form, and refusals. */
import t from 'tap';
import { parseScopes, scopeKeys } from '../../../sync/feed/scopes.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

t.test('the default: open patrols, 30 days of events and patrols, subjects, catalogs', async (t) => {
  const keys = scopeKeys([], NOW, null);
  t.ok(keys.includes('pa:open') && keys.includes('su:*') && keys.includes('cat:*'));
  t.equal(keys.filter((k) => k.startsWith('ev:day:')).length, 30);
  t.ok(keys.includes('ev:day:2026-11-25') && keys.includes('ev:day:2026-10-27') && !keys.includes('ev:day:2026-10-26'));
  t.equal(keys.filter((k) => k.startsWith('pa:day:')).length, 30);
  t.not(JSON.stringify(scopeKeys([], NOW + 86_400_000, null)), JSON.stringify(keys), 'the day keys move with the date');
});

t.test('each scope form, as a union with the catalogs', async (t) => {
  t.same(scopeKeys(parseScopes(['mine']), NOW, 'u-1'), ['cat:*', 'ev:by:u-1', 'pa:by:u-1']);
  t.throws(() => scopeKeys(['mine'], NOW, null), /who you are/);
  t.same(scopeKeys(parseScopes(['team:g 1'.replace(' ', '')]), NOW, null), ['cat:*', 'ev:team:g1', 'pa:team:g1', 'su:group:g1']);
  t.same(scopeKeys(parseScopes(['category:monitoring']), NOW, null), ['cat:*', 'ev:cat:monitoring']);
  t.same(scopeKeys(parseScopes(['bbox:36.5,-1.5,37.2,-1.0']), NOW, null), ['cat:*', 'ev:cell:-1:36', 'ev:cell:-1:37', 'ev:cell:-2:36', 'ev:cell:-2:37']);
  const week = scopeKeys(parseScopes(['window:7d', 'category:monitoring']), NOW, null);
  t.equal(week.filter((k) => k.startsWith('ev:day:')).length, 7);
  t.ok(week.includes('ev:cat:monitoring'), 'a union');
  t.same(parseScopes(['window:7d', 'mine', 'window:7d']), ['mine', 'window:7d'], 'sorted, without repeats (stored as such)');
});

t.test('bad scopes are usage errors naming the value', async (t) => {
  for (const bad of ['everything', 'team:', 'bbox:1,2,3', 'bbox:10,0,5,1', 'bbox:0,0,1,95', 'window:0d', 'window:91d', 'window:7', '', 'category:a b']) {
    const error = (() => {
      try {
        parseScopes([bad]);
      } catch (e) {
        return e as { kind?: string };
      }
      return null;
    })();
    t.equal(error?.kind, 'usage', `refused: "${bad}"`);
  }
  t.throws(() => scopeKeys(parseScopes(['bbox:-180,-90,180,90']), NOW, null), /more than 200/);
});
