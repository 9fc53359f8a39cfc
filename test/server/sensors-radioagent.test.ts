import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { application, at, countRows, knexOf, observation, post, userToken } from './sensors-support.js';

const AGENT = '/sensors/dasradioagent/trbonet-hq/status';

function radioFix(radio: string, minute: number, state: string, extra: Record<string, unknown> = {}) {
  return {
    message_key: 'observation',
    ...observation(radio, minute, { subject_name: `Ranger ${radio}`, model_name: 'DP4801' }),
    additional: { radio_state: state, radio_state_at: at(minute), last_voice_call_start_at: null, location_requested_at: at(minute - 1), event_action: 'device_location_changed' },
    ...extra,
  };
}

const heartbeat = { message_key: 'heartbeat', heartbeat: { title: 'TRBOnet agent', timestamp: '2026-11-20T08:00:00+03:00', version: '2.1' }, datasource: { id: 'ds-1', name: 'HQ repeater' } };

t.test(`radio agents (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const admin = (await s.login()).access_token;
  const rangerOf = async (name: string) => (await s.json('/api/v1.0/subjects', { token: admin })).body.data.find((x: { name: string }) => x.name === name);

  await t.test('observations carry the radio state to the subject; every path spelling works', async (t) => {
    const first = await post(s, AGENT, radioFix('4401', 0, 'online-gps'), admin);
    t.equal(first.status, 201);
    t.same(first.body.data, { received: 1, created: 1, duplicates: 0, heartbeats: 0 });
    for (const path of ['/sensors/radioagent/trbonet-hq/status', `/api/v1.0${AGENT}/`, '/api/v1.0/sensors/radioagent/trbonet-hq/status/']) {
      t.equal((await post(s, path, radioFix('4401', 0, 'online-gps'), admin)).status, 200, `${path}: a duplicate`);
    }
    const ranger = await rangerOf('Ranger 4401');
    t.match(ranger, { subject_type: 'person', subject_subtype: 'ranger' }, 'radio agents track rangers by default');
    t.same(ranger.last_position_status, { radio_state: 'online-gps', radio_state_at: at(0), last_voice_call_start_at: null, location_requested_at: at(-1) });
    const source = await knexOf(s)('sensor_sources').where({ manufacturer_id: '4401' }).first();
    t.match(source, { source_type: 'gps-radio', model_name: 'DP4801' });
  });

  await t.test('radio state advances with newer observations only', async (t) => {
    t.equal((await post(s, AGENT, [radioFix('4401', 10, 'alarm'), radioFix('4401', 5, 'offline')], admin)).status, 201);
    t.equal((await rangerOf('Ranger 4401')).last_position_status.radio_state, 'alarm', 'the newest of the batch');
    await post(s, AGENT, radioFix('4401', 7, 'online-gps'), admin);
    t.equal((await rangerOf('Ranger 4401')).last_position_status.radio_state, 'alarm', 'an older report does not win');
    await post(s, '/sensors/gps-radio/trbonet-hq/status', observation('4401', 20, { subject_name: 'Ranger 4401' }), admin);
    const ranger = await rangerOf('Ranger 4401');
    t.equal(ranger.last_position_status.radio_state, 'alarm', 'a fix without radio fields keeps the radio state');
    t.equal(ranger.last_position_date, new Date(Date.parse(at(20))).toISOString().replace('Z', '+00:00'), 'but moves the position');
  });

  await t.test('a heartbeat is the provider\'s latest status, echoed with 200', async (t) => {
    const response = await post(s, AGENT, heartbeat, admin);
    t.equal(response.status, 200);
    t.same(response.body, { data: heartbeat, status: { code: 200, message: 'OK' } });
    const provider = await knexOf(s)('sensor_providers').where({ provider_key: 'trbonet-hq' }).first();
    t.same(JSON.parse(provider.last_heartbeat), heartbeat);
    t.ok(Number(provider.last_heartbeat_at) > 0);
    const later = { ...heartbeat, heartbeat: { ...heartbeat.heartbeat, timestamp: '2026-11-20T08:05:00+03:00' } };
    await post(s, AGENT, later, admin);
    const updated = await knexOf(s)('sensor_providers').where({ provider_key: 'trbonet-hq' }).first();
    t.same(JSON.parse(updated.last_heartbeat), later, 'replaced by the next one');
    const fresh = await post(s, '/sensors/dasradioagent/new-agent/status', heartbeat, admin);
    t.equal(fresh.status, 200, 'a heartbeat from an unseen key creates the provider');
    t.equal(await countRows(s, 'sensor_providers', { provider_key: 'new-agent' }), 1);
  });

  await t.test('a mixed batch stores observations and the last heartbeat together', async (t) => {
    const mixed = await post(s, AGENT, [heartbeat, radioFix('4402', 0, 'online-gps'), radioFix('4402', 1, 'online-gps')], admin);
    t.equal(mixed.status, 201);
    t.same(mixed.body.data, { received: 3, created: 2, duplicates: 0, heartbeats: 1 });
    const beatsOnly = await post(s, AGENT, [heartbeat, heartbeat], admin);
    t.same([beatsOnly.status, beatsOnly.body.data.heartbeats], [200, 2]);
  });

  await t.test('invalid messages fail the request, nothing stored', async (t) => {
    const before = await countRows(s, 'observations');
    const cases: Array<[string, unknown, string[]]> = [
      // (No message_key at all is an observation since CONTRACT §11: test/compat/bodies.test.ts.)
      ['unknown message_key', { ...observation('x', 0), message_key: 'ping' }, ['/message_key']],
      ['heartbeat without heartbeat', { message_key: 'heartbeat' }, ['/heartbeat']],
      ['heartbeat not an object', { message_key: 'heartbeat', heartbeat: 'alive' }, ['/heartbeat']],
      ['datasource not an object', { ...heartbeat, datasource: [1] }, ['/datasource']],
      ['bad fix among good ones', [radioFix('4403', 0, 'online-gps'), { ...radioFix('4403', 1, 'online-gps'), location: { lat: 'x', lon: 0 } }, heartbeat], ['/1/location/lat']],
    ];
    for (const [name, body, pointers] of cases) {
      const response = await post(s, AGENT, body, admin);
      t.equal(response.status, 400, name);
      t.same(response.body.observations.map((issue: { pointer: string }) => issue.pointer), pointers, name);
    }
    t.equal(await countRows(s, 'observations'), before);
    t.equal(await countRows(s, 'sensor_sources', { manufacturer_id: '4403' }), 0);
  });

  await t.test('principals', async (t) => {
    t.equal((await post(s, AGENT, heartbeat)).status, 401);
    const viewer = await userToken(s, 'radio.viewer', ['view_subject']);
    t.equal((await post(s, AGENT, heartbeat, viewer)).status, 403);
    const agent = await application(s, 'radio-agent', ['add_observation']);
    t.equal((await post(s, `${AGENT}?client_id=${agent}`, radioFix('4404', 0, 'online-gps'))).status, 201);
  });

  await t.test('no request ended in a 5xx', async (t) => {
    t.notMatch(s.logs(), /"status":5\d\d/);
  });
});
