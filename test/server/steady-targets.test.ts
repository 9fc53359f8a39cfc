import t from 'tap';
import type { SensorProvider, SensorSource, Subject } from '../../server/domain/model.js';
import type { SteadyIntakeRead } from '../../server/domain/ports.js';
import { SteadyTargets } from '../../server/domain/sensors/steady-targets.js';

const provider = (id: string): SensorProvider => ({ id, tenantId: 'tenant', key: 'collars', providerType: 'gps-radio', lastHeartbeat: null, lastHeartbeatAt: null, createdAt: 0, updatedAt: 0 });
const source = (manufacturerId: string, subjectId: string | null = null): SensorSource => ({
  id: `source-${manufacturerId}`, tenantId: 'tenant', providerId: 'p1', manufacturerId, sourceType: 'tracking-device', modelName: '', subjectId, createdAt: 0, updatedAt: 0,
});
const subject = (id: string, name: string, createdAt: number): Subject => ({ id, tenantId: 'tenant', name, subjectType: 'wildlife', subjectSubtype: 'rhino', isActive: true, additional: {}, createdAt, updatedAt: createdAt, revision: 1 });
const read = (sources: SensorSource[], named: Subject[], subjectsVersion: number, providerId = 'p1'): SteadyIntakeRead => ({
  provider: provider(providerId), sources: new Map(sources.map((s) => [s.manufacturerId, s])), named, subjectsVersion,
});

t.test('finds only what it was told, for every manufacturer id and name asked', async (t) => {
  const targets = new SteadyTargets();
  t.equal(targets.find('tenant', 'collars', ['a'], []), null, 'nothing remembered');
  targets.remember('tenant', 'collars', read([source('a', 's1')], [subject('s1', 'Alpha', 1)], 3), ['Alpha', 'a']);
  const found = targets.find('tenant', 'collars', ['a'], ['Alpha', 'a']);
  t.same([found?.subjectsVersion, found?.sources.get('a')?.subjectId, found?.named.map((s) => s.id)], [3, 's1', ['s1']], 'a name with no subject is remembered as having none');
  t.equal(targets.find('tenant', 'collars', ['a', 'b'], []), null, 'an unknown source');
  t.equal(targets.find('tenant', 'collars', ['a'], ['Bravo']), null, 'a name never asked');
  t.equal(targets.find('other-tenant', 'collars', ['a'], []), null, 'another tenant');
  t.equal(targets.find('tenant', 'other', ['a'], []), null, 'another provider key');
});

t.test('joins reads of one version; a new version or provider starts afresh', async (t) => {
  const targets = new SteadyTargets();
  targets.remember('tenant', 'collars', read([source('a')], [subject('s2', 'Alpha', 2), subject('s1', 'Alpha', 1)].sort((x, y) => x.createdAt - y.createdAt), 3), ['Alpha']);
  targets.remember('tenant', 'collars', read([source('b', 's9')], [subject('s9', 'Bravo', 5)], 3), ['Bravo']);
  const both = targets.find('tenant', 'collars', ['a', 'b'], ['Alpha', 'Bravo']);
  t.same(both?.named.map((s) => s.id), ['s1', 's2', 's9'], 'same version: joined, each name oldest first');
  targets.remember('tenant', 'collars', read([source('b', 's9')], [], 4), []);
  t.equal(targets.find('tenant', 'collars', ['a'], []), null, 'a newer version forgets what an older one read');
  t.ok(targets.find('tenant', 'collars', ['b'], []), 'and keeps the new read');
  targets.remember('tenant', 'collars', read([source('c')], [], 4, 'p2'), []);
  t.equal(targets.find('tenant', 'collars', ['b'], []), null, 'another provider row (recreated): afresh');
  targets.forget('tenant', 'collars');
  t.equal(targets.size, 0);
});

t.test('bounded: the least recently used providers go first', async (t) => {
  const targets = new SteadyTargets();
  for (let i = 0; i < 70; i++) {
    targets.remember('tenant', `key-${i}`, read([source(`m${i}`)], [], 1), []);
    if (i >= 1) targets.find('tenant', 'key-0', ['m0'], []);
  }
  t.equal(targets.size, 64, 'at most 64 providers');
  t.ok(targets.find('tenant', 'key-0', ['m0'], []), 'the one in use stays');
  t.equal(targets.find('tenant', 'key-1', ['m1'], []), null, 'the oldest unused went');
  const big = new SteadyTargets();
  for (let batch = 0; batch < 30; batch++) {
    const sources = Array.from({ length: 1000 }, (_, i) => source(`m${batch * 1000 + i}`));
    big.remember('tenant', batch % 2 ? 'odd' : 'even', read(sources, [], 1), []);
    t.ok(big.remembered <= 20_000, `at most 20,000 sources and names in all (batch ${batch}: ${big.remembered})`);
    t.ok(big.find('tenant', batch % 2 ? 'odd' : 'even', [`m${batch * 1000}`], []), `batch ${batch}: the newest read is kept`);
  }
  t.ok(big.remembered > 10_000, 'and it does hold that many');
  const one = new SteadyTargets();
  for (let batch = 0; batch < 25; batch++) one.remember('tenant', 'collars', read(Array.from({ length: 1000 }, (_, i) => source(`m${batch * 1000 + i}`)), [], 1), []);
  t.equal(one.remembered, 5000, 'one provider past the bound starts again from its newest reads');
});
