import path from 'node:path';
import t from 'tap';
import { loadDemoData } from '../../server/domain/demo.js';
import { packageRoot } from '../../server/domain/users/common-passwords.js';
import { dialect, startTestServer } from '../helpers/server.js';

t.test(`demo data loads once into the empty default tenant (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { services, admin } = s.server.runtime;
  const dir = path.join(packageRoot(), 'fixtures/demo');
  const loaded = await loadDemoData({ services, admin }, dir);
  t.same(loaded.slice(0, 2).map((line) => line.split(' ')[2]), ['ranger', 'analyst']);
  t.match(loaded.join('\n'), /4 patrol types/);
  t.match(loaded.join('\n'), /3 patrols/);
  const ranger = await s.login('ranger', 'Demo-Acacia-Patrol-2026');
  t.equal((await s.json('/users/me', { token: ranger.access_token })).body.data.name, 'Wanjiru Kamau');
  t.equal((await s.json('/users/', { token: ranger.access_token })).status, 403, 'the ranger cannot list users');
  const analyst = await s.login('analyst', 'Demo-Baobab-Reports-2026');
  t.equal((await s.json('/users/', { token: analyst.access_token })).body.data.length, 3);
  t.same(await loadDemoData({ services, admin }, dir), [], 'a tenant with users is left alone');
  const types = await s.json('/api/v1.0/activity/patrols/types', { token: ranger.access_token });
  t.same(types.body.map((type: { value: string }) => type.value).sort(), ['aerial_patrol', 'fence_patrol', 'routine_patrol', 'vehicle_patrol']);
  const schemas = await s.json('/api/v1.0/activity/patrols/types/schemas?pre_render=true', { token: ranger.access_token });
  t.equal(schemas.status, 200, 'every demo schema is valid and resolves');
  const leaders = await s.json('/api/v1.0/activity/patrols/trackedby', { token: (await s.login()).access_token });
  t.equal(leaders.body.properties.leader.enum.length, 3, 'three patrol leaders');
  const sighting = await s.json('/api/v2.0/activity/eventtypes/wildlife_sighting/schema?pre_render=true', { token: ranger.access_token });
  t.notMatch(JSON.stringify(sighting.body), /choices\.json/, 'the v2 demo type resolves every choice');
  const patrols = await s.json('/api/v1.0/activity/patrols', { token: ranger.access_token });
  t.same(patrols.body.results.map((p: { state: string }) => p.state).sort(), ['done', 'open', 'open'], 'the past patrol completed itself');
  t.ok(patrols.body.results.every((p: { patrol_segments: Array<{ leader: unknown }> }) => p.patrol_segments[0]?.leader), 'every demo segment has its leader');
  for (const value of ['fence_patrol_rep', 'snare_removal_rep']) {
    t.equal((await s.json(`/api/v1.0/activity/events/schema/eventtype/${value}`, { token: ranger.access_token })).status, 200, `${value} renders`);
    const migrated = await s.json('/api/v2.0/activity/eventtypes/migrate', { method: 'POST', token: (await s.login()).access_token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ event_types: [value] }) });
    t.same(migrated.body.results[0].errors, [], `${value} migrates`);
  }
  // A report of each demo v1 type can be saved: its rendered schema compiles (fence_patrol_rep
  // has a `checkboxes` pseudo-type property, validated as a list of its titleMap's values).
  const E = '/api/v1.0/activity/events';
  const report = (event_type: string, event_details: Record<string, unknown>) =>
    s.json(E, { method: 'POST', token: ranger.access_token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ event_type, event_details }) });
  // What the web app's form can send: every required field is a property the form shows.
  const fence = { fencerep_section: 'km 12', fencerep_damage: 'cut_wire', fencerep_tools: ['pliers', 'spade'], fencerep_repairs: [{ material: 'wire', metres: 20 }] };
  const saved = await report('fence_patrol_rep', fence);
  t.equal(saved.status, 201, `fence_patrol_rep: ${JSON.stringify(saved.body)}`);
  const wrongTool = await report('fence_patrol_rep', { ...fence, fencerep_tools: ['chainsaw'] });
  t.equal(wrongTool.status, 400, 'a tool outside the titleMap');
  t.match(JSON.stringify(wrongTool.body), /fencerep_tools/);
  t.equal((await report('fence_patrol_rep', { ...fence, fencerep_tools: 'pliers' })).status, 400, 'checkboxes take a list');
  t.equal((await report('snare_removal_rep', { snarerep_type: 'gin_trap', snarerep_count: 2 })).status, 201, 'snare_removal_rep');
});
