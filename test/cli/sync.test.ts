/**
 * `fieldops sync` and the offline reads, through the real binary against a real server, with
 * a recording proxy in between to see the wire from outside the CLI: first sync, a no-change
 * sync (one 304 per resource, no body bytes), changes, deletions and deactivations.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { cliEnv } from '../helpers/cli-env.js';
import { dumpMirror, integrityCheck } from '../helpers/mirror-dump.js';
import { startTestServer } from '../helpers/server.js';
import { CHOICES, EVENT_TYPES, TYPES, seedCatalog } from '../helpers/sync-seed.js';
import { startWireProxy } from '../helpers/wire-proxy.js';

const RESOURCES = ['patrol_types', 'trackedby', 'event_types', 'choices'];

t.test('sync and offline reads', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const seeded = await seedCatalog(s, token);
  const proxy = await startWireProxy(t, s.url);
  const cli = cliEnv(t);
  t.equal((await cli.login(proxy.url)).code, 0);

  await t.test('first sync downloads everything and writes checkpoints with the data', async (t) => {
    const { code, body, stderr } = await cli.json(['sync']);
    t.equal(code, 0, stderr);
    t.same(body.resources.map((r: any) => [r.resource, r.outcome, r.status]), RESOURCES.map((r) => [r, 'changed', 200]));
    const byName = Object.fromEntries(body.resources.map((r: any) => [r.resource, r]));
    t.equal(byName.patrol_types.items, 3);
    t.same(byName.patrol_types.changes.added.sort(), ['aerial_patrol', 'fence_patrol', 'foot_patrol']);
    t.equal(byName.event_types.items, 1);
    t.equal(byName.choices.items, 3);
    t.match(stderr, /patrol_types: HTTP 200/, 'progress goes to stderr without a terminal');
    const dump = dumpMirror(cli.mirror);
    t.same(dump.checkpoints.map((c) => c.resource), ['choices', 'event_types', 'patrol_types', 'trackedby']);
    for (const c of dump.checkpoints) t.match(c.etag, /^"/, `${c.resource}: ETag stored`);
    t.ok(dump.checkpoints.filter((c) => c.resource !== 'trackedby').every((c) => typeof c.last_modified === 'string'), 'Last-Modified stored where offered');
    t.equal(dump.checkpoints.find((c) => c.resource === 'trackedby')!.last_modified, null, 'tracked-by has no Last-Modified');
    t.same(dump.meta, [{ key: 'server', value: proxy.url }, { key: 'username', value: 'admin' }]);
    t.equal(integrityCheck(cli.mirror), 'ok');
  });

  await t.test('an unchanged server costs one 304 per resource and no body bytes', async (t) => {
    const before = dumpMirror(cli.mirror);
    proxy.reset();
    const logsBefore = s.logs().length;
    const { code, body, stderr } = await cli.json(['sync']);
    t.equal(code, 0, stderr);
    // Seen from outside the CLI:
    t.equal(proxy.exchanges.length, 4, 'four requests');
    t.same(proxy.exchanges.map((e) => e.status), [304, 304, 304, 304], 'each answered 304');
    t.same(proxy.exchanges.map((e) => e.bytes), [0, 0, 0, 0], 'with no body');
    for (const e of proxy.exchanges) {
      t.match(e.requestHeaders['if-none-match'], /^"/, `${e.path}: If-None-Match sent`);
      if (!e.path.includes('trackedby')) t.ok(e.requestHeaders['if-modified-since'], `${e.path}: If-Modified-Since sent`);
    }
    // Seen by the server:
    const requests = s.logs().slice(logsBefore).split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
    t.same(requests.map((r) => r.status), [304, 304, 304, 304], 'the server logged four 304s');
    // Reported by the CLI:
    t.same(body.wire.exchanges.map((e: any) => [e.status, e.bytes]), [[304, 0], [304, 0], [304, 0], [304, 0]]);
    t.same(body.resources.map((r: any) => r.outcome), ['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    const after = dumpMirror(cli.mirror);
    t.same(strip(after), strip(before), 'data and validators unchanged');
    t.ok(after.checkpoints.every((c, i) => String(c.synced_at) >= String(before.checkpoints[i]!.synced_at)), 'synced_at confirmed');
  });

  await t.test('offline reads: types, schema, pre-rendered choices, tracked-by, status', async (t) => {
    const list = await cli.run(['types', 'list']);
    t.equal(list.code, 0, list.stderr);
    t.match(list.stdout, /^kind\s+value\s+display\s+active\s+priority\s+fields\n/);
    t.match(list.stdout, /patrol\s+fence_patrol\s+Fence patrol\s+yes\s+100\s+2\n/);
    t.match(list.stdout, /event\s+wildlife_sighting\s+Wildlife sighting\s+yes/);
    const json = await cli.json(['types', 'list', '--kind', 'patrol']);
    t.same(json.body.map((x: any) => x.value).sort(), ['aerial_patrol', 'fence_patrol', 'foot_patrol']);
    t.notOk('schema' in json.body[0], 'the list leaves schemas out');
    const show = await cli.run(['types', 'show', 'fence_patrol']);
    t.match(show.stdout, /value\s+fence_patrol\n[\s\S]*fields:\n  notes \(Notes\): string\n  species \(Species\): string/);
    const schema = await cli.json(['types', 'show', 'fence_patrol', '--schema']);
    t.same(schema.body.json.properties.species.anyOf, [{ $ref: '/api/v2.0/schemas/choices.json?field=species' }], 'stored schema as served');
    const rendered = await cli.run(['types', 'show', 'fence_patrol', '--pre-render']);
    t.same(JSON.parse(rendered.stdout).json.properties.species.anyOf, [
      { const: 'elephant', title: 'Elephant' },
      { const: 'lion', title: 'Lion' },
      { const: 'rhino', title: 'Rhino' },
    ], 'choices resolved from the mirror');
    const enumShape = JSON.parse((await cli.run(['types', 'show', 'wildlife_sighting', '--pre-render', '--shape', 'enum'])).stdout);
    t.same(enumShape.json.properties.species.enum, ['elephant', 'lion', 'rhino']);
    const missing = await cli.run(['types', 'show', 'no_such_type']);
    t.equal(missing.code, 1);
    t.match(missing.stderr, /no type "no_such_type" in the mirror[\s\S]*hint:/);
    const leaders = await cli.run(['trackedby']);
    t.match(leaders.stdout, /Ranger Amani\s+person/);
    const status = await cli.json(['status']);
    t.equal(status.body.server, proxy.url);
    t.same(status.body.resources.map((r: any) => [r.resource, r.status, r.stale]), [['choices', 'ok', false], ['event_types', 'ok', false], ['patrol_types', 'ok', false], ['trackedby', 'ok', false]]);
    t.equal(proxy.exchanges.length, 4, 'none of the offline reads touched the network');
  });

  await t.test('changes on the server: only the changed resources are downloaded and applied', async (t) => {
    t.equal((await s.json(`${TYPES}/foot_patrol`, send('PATCH', { display: 'Foot patrol (day)' }, token))).status, 200);
    t.equal((await s.json(TYPES, send('POST', { value: 'boat_patrol', display: 'Boat patrol' }, token))).status, 201);
    await seeded.subjects.create(seeded.tenantId, { name: 'Ranger Baraka', groups: [{ name: 'Rangers south', patrolLeaders: true }] });
    proxy.reset();
    const { code, body, stderr } = await cli.json(['sync']);
    t.equal(code, 0, stderr);
    const byName = Object.fromEntries(body.resources.map((r: any) => [r.resource, r]));
    t.same([byName.event_types.status, byName.choices.status], [304, 304], 'event types and choices unchanged: 304');
    t.same(byName.patrol_types.changes, { added: ['boat_patrol'], updated: ['foot_patrol'], removed: [], deactivated: [], reactivated: [] });
    t.same(byName.trackedby.changes.updated, ['trackedby']);
    t.match((await cli.run(['types', 'list'])).stdout, /Foot patrol \(day\)[\s\S]*boat_patrol|boat_patrol[\s\S]*Foot patrol \(day\)/);
    t.match((await cli.run(['trackedby'])).stdout, /Ranger Baraka/);
    const plain = await cli.run(['sync']);
    t.match(plain.stdout, /^Synced with .*: 4 requests, 0 B received\.\nresource\s+result\s+items\s+received\s+changes\npatrol_types\s+unchanged\s+4/);
  });

  await t.test('deleted types are pruned, deactivated ones kept and flagged', async (t) => {
    t.equal((await s.request(`${TYPES}/aerial_patrol`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.json(`${TYPES}/boat_patrol`, send('PATCH', { is_active: false }, token))).status, 200);
    t.equal((await s.request(`${CHOICES}/${seeded.choices.lion}`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.json(CHOICES, send('POST', { field: 'species', value: 'zebra', display: 'Zebra', ordernum: 40 }, token))).status, 201);
    t.equal((await s.request(`${EVENT_TYPES}/wildlife_sighting`, { method: 'DELETE', token })).status, 204);
    const result = await cli.run(['sync']);
    t.equal(result.code, 0, result.stderr);
    t.match(result.stdout, /patrol_types: removed \(deleted on the server\): aerial_patrol/);
    t.match(result.stdout, /patrol_types: deactivated \(kept, flagged inactive\): boat_patrol/);
    t.match(result.stdout, /choices: deactivated \(kept, flagged inactive\): species\/lion/);
    t.match(result.stdout, /choices\s+changed\s+4\s+[\d.]+ (B|KiB)\s+1 added, 1 deactivated/);
    t.match(result.stdout, /event_types: removed \(deleted on the server\): wildlife_sighting/);
    const dump = dumpMirror(cli.mirror);
    t.notOk(dump.patrol_types.some((p) => p.value === 'aerial_patrol'), 'pruned');
    t.equal(dump.patrol_types.find((p) => p.value === 'boat_patrol')!.is_active, 0, 'flagged');
    t.equal(dump.event_types.length, 0);
    const list = await cli.run(['types', 'list']);
    t.notMatch(list.stdout, /boat_patrol/, 'inactive types hidden by default');
    t.match(list.stderr, /1 deactivated type not shown \(--all shows them\)/);
    t.match((await cli.run(['types', 'list', '--all'])).stdout, /boat_patrol\s+Boat patrol\s+no \(deactivated\)/);
    const rendered = JSON.parse((await cli.run(['types', 'show', 'fence_patrol', '--pre-render'])).stdout);
    t.same(rendered.json.properties.species.anyOf.map((c: any) => c.const), ['elephant', 'rhino', 'zebra'], 'a deactivated choice is no longer offered');
    t.equal(integrityCheck(cli.mirror), 'ok');
  });
});

/** The mirror without the times a sync refreshes. */
function strip(dump: ReturnType<typeof dumpMirror>) {
  return { ...dump, checkpoints: dump.checkpoints.map(({ synced_at: _s, ...rest }) => rest) };
}
