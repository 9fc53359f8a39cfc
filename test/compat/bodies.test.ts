import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { observation } from '../server/sensors-support.js';
import { loadDemoData } from '../../server/domain/demo.js';
import { repoRoot } from '../helpers/cli.js';
import { routeTable } from '../../server/http/routes/index.js';
import { RULED_ROUTES } from '../../server/http/presentation/rules.js';
import path from 'node:path';

const P = '/api/v1.0/activity/patrols';

async function tokenVia(s: TestServer, clientId: string): Promise<string> {
  const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: clientId, username: 'admin', password: 'Test-Superuser-Passphrase-7' }) });
  return String(((await response.json()) as { access_token: string }).access_token);
}

/** CONTRACT §11: bodies as the original clients send them. */
t.test(`bodies as the original clients send them (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { runtime } = s.server;
  await loadDemoData({ services: runtime.services, admin: runtime.admin }, path.join(repoRoot, 'fixtures/demo'));
  await runtime.admin.createClient({ tenant: 'default', clientId: 'das_web_client', grants: ['password'], profile: 'earthranger' });
  const er = await tokenVia(s, 'das_web_client');
  const plain = (await s.login()).access_token;

  t.test('the profile rules name routes of the table', async (t) => {
    const names = new Set(routeTable(runtime.services).map((route) => route.name));
    for (const name of RULED_ROUTES) t.ok(names.has(name), name);
  });

  await t.test('a PATCH of what was served succeeds in the earthranger profile; unknown fields stay 400', async (t) => {
    const patrol = (await s.json(P, { token: er })).body.data.results[0];
    const patched = await s.json(`${P}/${patrol.id}`, send('PATCH', { ...patrol, title: 'Renamed' }, er));
    t.equal(patched.status, 200, JSON.stringify(patched.body).slice(0, 400));
    t.equal(patched.body.data.title, 'Renamed');
    t.equal(patched.body.data.serial_number, patrol.serial_number, 'read-only fields ignored');
    const segment = patrol.patrol_segments[0];
    const segmentPatch = await s.json(`${P}/segments/${segment.id}`, send('PATCH', segment, er));
    t.equal(segmentPatch.status, 200, JSON.stringify(segmentPatch.body).slice(0, 400));
    const unknown = await s.json(`${P}/${patrol.id}`, send('PATCH', { ...patrol, colour: 'red' }, er));
    t.equal(unknown.status, 400);
    t.ok(unknown.body.colour, 'an unknown field is still refused');
    const asServed = (await s.json(`${P}/${patrol.id}`, { token: plain })).body;
    const carried = await s.json(`${P}/${patrol.id}`, send('PATCH', { ...asServed, title: 'Renamed again' }, plain));
    t.equal(carried.status, 400, 'the fieldops profile holds to the specification: nested segments must not carry patrol');
    t.match(carried.body['patrol_segments[0].patrol'], [{ code: 'not_allowed' }]);
    const segmentsWithoutPatrol = asServed.patrol_segments.map(({ patrol: _patrol, ...rest }: Record<string, unknown>) => rest);
    const fieldops = await s.json(`${P}/${patrol.id}`, send('PATCH', { ...asServed, patrol_segments: segmentsWithoutPatrol, title: 'Renamed again' }, plain));
    t.equal(fieldops.status, 200, `the other read-only fields are accepted in the fieldops profile too: ${JSON.stringify(fieldops.body).slice(0, 300)}`);
    const fieldopsSegment = await s.json(`${P}/segments/${segment.id}`, send('PATCH', asServed.patrol_segments[0], plain));
    t.equal(fieldopsSegment.status, 200, `a served segment PATCHed back: ${JSON.stringify(fieldopsSegment.body).slice(0, 300)}`);
  });

  await t.test('creates in the earthranger profile keep the client id and a standalone segment its patrol', async (t) => {
    const id = '3f0c2a1e-9b7d-4c55-8e21-6a0d5b9c7e11';
    const created = await s.json(P, send('POST', { id, title: 'Offline patrol' }, er));
    t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    t.equal(created.body.data.id, id, 'the client-supplied id is kept');
    t.equal((await s.json(P, send('POST', { id, title: 'Retried' }, er))).status, 409, 'a retried create is a 409, not a second patrol');
    const segment = await s.json(`${P}/segments`, send('POST', { patrol: id }, er));
    t.equal(segment.status, 201, `a standalone segment create names its patrol: ${JSON.stringify(segment.body).slice(0, 300)}`);
  });

  await t.test('patrol filter: empty patrol_type and tracked_by lists are no filter', async (t) => {
    const all = (await s.json(P, { token: plain })).body.count;
    t.ok(all > 0);
    const filter = encodeURIComponent(JSON.stringify({ patrol_type: [], tracked_by: [], text: '' }));
    t.equal((await s.json(`${P}?filter=${filter}`, { token: plain })).body.count, all);
    const none = encodeURIComponent(JSON.stringify({ patrol_type: ['00000000-0000-4000-8000-000000000000'] }));
    t.equal((await s.json(`${P}?filter=${none}`, { token: plain })).body.count, 0, 'a non-empty list still filters');
  });

  await t.test('a radio observation without message_key is an observation', async (t) => {
    const { message_key: _omitted, ...fix } = { message_key: 'observation', ...observation('7701', 0, { subject_name: 'Ranger 7701' }) };
    const stored = await s.json('/api/v1.0/sensors/dasradioagent/agent-1/status', send('POST', fix, plain));
    t.equal(stored.status, 201, JSON.stringify(stored.body).slice(0, 300));
    const unknown = await s.json('/api/v1.0/sensors/dasradioagent/agent-1/status', send('POST', { ...fix, message_key: 'gossip' }, plain));
    t.equal(unknown.status, 400, 'an unknown message_key is still refused');
  });
});
