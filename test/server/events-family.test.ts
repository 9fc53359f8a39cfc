import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const E = '/api/v1.0/activity/events';
const ONE = '/api/v1.0/activity/event';

/** The events family at the original paths (CONTRACT §11), its fields, validators and list filters. */
t.test(`events family: original paths, fields, ETag and If-Match, filters (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  const schema = {
    json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { count: { type: 'integer', title: 'Count', minimum: 1 } } },
    ui: { fields: { count: { type: 'NUMBER', inputType: 'NUMBER' } }, sections: {}, order: [], headers: {} },
  };
  for (const [value, collection] of [['sighting', false], ['incident', true]] as const) {
    const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value, display: value, default_state: 'new', is_collection: collection, schema }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
  }
  const post = (body: Record<string, unknown>, bearer = token) => s.json(E, send('POST', { event_type: 'sighting', event_details: {}, ...body }, bearer));

  await t.test('the fields the clients read; serial numbers per tenant; GET/PATCH/DELETE at activity/event/<id>', async (t) => {
    const first = await post({ time: '2026-11-20T08:00:00+00:00', title: 'Gate', event_details: { count: 2 } });
    t.equal(first.status, 201, JSON.stringify(first.body));
    const second = await post({ event_type: 'incident', time: '2026-11-20T09:00:00+00:00' });
    t.equal(second.body.serial_number, first.body.serial_number + 1, 'serial numbers increase');
    t.match(first.body, {
      serial_number: Number, reported_by: { username: 'admin', content_type: 'accounts.user' }, is_collection: false, notes: [], files: [],
      updates: [{ type: 'add_event', user: { username: 'admin' } }], url: `${s.url}${ONE}/${first.body.id}`,
    });
    t.equal(second.body.is_collection, true, 'is_collection comes from the type');
    const read = await s.request(`${ONE}/${first.body.id}`, { token });
    t.equal(read.status, 200);
    t.ok(read.headers.get('etag'), 'an ETag on the detail');
    t.equal((await s.json(`${E}/${first.body.id}`, { token })).body.id, first.body.id, 'the fieldops path still answers');
    const served = (await read.json()) as Record<string, unknown>;
    const echoed = await s.json(`${ONE}/${first.body.id}`, send('PATCH', { ...served, state: 'active' }, token));
    t.equal(echoed.status, 200, `a PATCH of what was served succeeds: ${JSON.stringify(echoed.body)}`);
    t.match(echoed.body.updates[0], { type: 'update_event_state', message: 'Changed State: new → active' });
    t.equal((await s.json(`${ONE}/${first.body.id}`, send('PATCH', { colour: 'red' }, token))).status, 400, 'unknown fields stay 400');
    t.equal((await s.json(`${ONE}/${first.body.id}`, send('PATCH', { id: second.body.id }, token))).status, 400, 'another id in the body');
    t.equal((await s.request(`${ONE}/${second.body.id}`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.request(`${ONE}/${second.body.id}`, { token })).status, 404, 'gone');
    t.equal((await s.request(`${ONE}/not-a-uuid`, { token })).status, 404, 'a malformed id is 404');

    await admin.createTenant('events-b');
    await admin.createUser({ tenant: 'events-b', username: 'events.b', password: 'Events-B-Pass-1', superuser: true });
    const tokenB = (await s.login('events.b', 'Events-B-Pass-1')).access_token;
    t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'B' }, tokenB))).status, 201);
    t.equal((await post({}, tokenB)).body.serial_number, 1, 'another tenant counts from 1');
    t.equal((await s.request(`${ONE}/${first.body.id}`, { token: tokenB })).status, 404, "another tenant's event is 404");
    t.equal((await s.request(`${ONE}/${first.body.id}`, { method: 'DELETE', token: tokenB })).status, 404);
  });

  await t.test('ETag: 304 on If-None-Match; If-Match on PATCH and DELETE (412 when stale; one of two writers wins)', async (t) => {
    const id = (await post({})).body.id;
    const tag = (await s.request(`${ONE}/${id}`, { token })).headers.get('etag')!;
    t.equal((await s.request(`${ONE}/${id}`, { token, headers: { 'If-None-Match': tag } })).status, 304);
    const guarded = (body: unknown, ifMatch: string) => s.json(`${ONE}/${id}`, { ...send('PATCH', body, token), headers: { 'Content-Type': 'application/json', 'If-Match': ifMatch } });
    const ok = await guarded({ priority: 200 }, tag);
    t.equal(ok.status, 200);
    const moved = (await s.request(`${ONE}/${id}`, { token })).headers.get('etag')!;
    t.not(moved, tag, 'a change moves the ETag');
    t.equal((await s.request(`${ONE}/${id}`, { token, headers: { 'If-None-Match': tag } })).status, 200, 'the old tag no longer matches');
    const stale = await guarded({ priority: 300 }, tag);
    t.equal(stale.status, 412);
    t.equal(stale.body.status.code, 412);
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.priority, 200, 'a stale write changed nothing');
    const racers = await Promise.all([0, 100, 300].map((priority) => guarded({ priority }, moved)));
    t.same(racers.map((r) => r.status).sort(), [200, 412, 412], 'concurrent writers with one tag: exactly one wins');
    t.equal((await s.request(`${ONE}/${id}`, { method: 'DELETE', token, headers: { 'If-Match': moved } })).status, 412, 'DELETE with a stale tag');
    const current = (await s.request(`${ONE}/${id}`, { token })).headers.get('etag')!;
    t.equal((await s.request(`${ONE}/${id}`, { method: 'DELETE', token, headers: { 'If-Match': current } })).status, 204);
  });

  await t.test('a client-supplied id is kept; the same id again is 409 and changes nothing', async (t) => {
    const id = '6f1c2a7e-1b3d-4c5e-8f90-1234567890ab';
    const created = await post({ id, title: 'Offline' });
    t.equal(created.status, 201);
    t.equal(created.body.id, id);
    const again = await post({ id, title: 'Retry' });
    t.equal(again.status, 409);
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.title, 'Offline');
    t.equal((await post({ id: 'nope' })).status, 400);
  });

  await t.test('list: state, filter (date_range, event_type, text), updated_since; bad input 400', async (t) => {
    const listed = async (query: string) => (await s.json(`${E}?page_size=100&${query}`, { token })).body;
    const all = await listed('');
    const ids = (body: { results: Array<{ id: string }> }) => body.results.map((event) => event.id).sort();
    const resolved = await post({ title: 'Fence cut near river', state: 'resolved', time: '2026-11-01T10:00:00+00:00' });
    t.same(ids(await listed('state=resolved')), [resolved.body.id], 'state=resolved');
    t.equal((await listed('state=new&state=active')).count, all.count, 'a list of states');
    t.equal((await listed('state=new,active,resolved')).count, all.count + 1, 'comma-separated');
    const filter = (value: unknown) => listed(`filter=${encodeURIComponent(JSON.stringify(value))}`);
    t.same(ids(await filter({ text: 'FENCE' })), [resolved.body.id], 'text, case-insensitive');
    t.same(ids(await filter({ text: String(resolved.body.serial_number) })), [resolved.body.id], 'text matches the serial number');
    t.same(ids(await filter({ date_range: { lower: '2026-10-31T00:00:00+00:00', upper: '2026-11-02T00:00:00+00:00' } })), [resolved.body.id], 'date_range');
    t.equal((await filter({ event_type: ['incident'] })).count, 0, 'event_type (the incident was deleted)');
    const typeId = (await s.json('/api/v2.0/activity/eventtypes/sighting', { token })).body.id;
    t.equal((await filter({ event_type: [typeId] })).count, all.count + 1, 'event_type by id');
    t.equal((await filter({ event_type: [], text: '' })).count, all.count + 1, 'empty lists are no filter');
    const since = new Date(Date.now() + 1000).toISOString();
    t.equal((await listed(`updated_since=${encodeURIComponent(since)}`)).count, 0, 'nothing changed after now');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await s.json(`${ONE}/${resolved.body.id}`, send('PATCH', { title: 'Fence mended' }, token));
    t.same(ids(await listed(`updated_since=${encodeURIComponent(since)}`)), [resolved.body.id], 'updated_since: only what changed');
    for (const bad of ['state=closed', 'filter=%7Bnope', `filter=${encodeURIComponent('{"colour": 1}')}`, 'updated_since=yesterday', 'sort_by=colour', `filter=${encodeURIComponent('{"date_range": {"lower": "2026-11-02T00:00:00+00:00", "upper": "2026-11-01T00:00:00+00:00"}}')}`]) {
      const response = await s.json(`${E}?${bad}`, { token });
      t.equal(response.status, 400, `${bad}: 400`);
      t.ok(response.body.status, 'the contract error body');
    }
    // Issue 24, finding 4: names of Object.prototype's members were a 500 (and SQL in the log).
    for (const name of ['constructor', '-toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
      const response = await s.json(`${E}?sort_by=${name}`, { token });
      t.equal(response.status, 400, `sort_by=${name}: 400`);
      t.match(JSON.stringify(response.body), /event_time, .*serial_number/, `sort_by=${name}: the answer names the allowed sorts`);
    }
    const sorted = await listed('sort_by=serial_number');
    const serials = sorted.results.map((event: { serial_number: number }) => event.serial_number);
    t.same(serials, [...serials].sort((a: number, b: number) => a - b), 'sort_by=serial_number');
  });

  await t.test('concurrent creates get distinct serial numbers with no gap; a refused create takes none', async (t) => {
    const before = (await post({})).body.serial_number as number;
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(i === 5 ? { patrol_segments: ['00000000-0000-4000-8000-000000000000'] } : { title: `c${i}` })));
    t.same(answers.map((a) => a.status).sort(), [...Array(11).fill(201), 400].sort(), 'eleven created, one refused inside its transaction (an unknown segment, after the insert)');
    const serials = answers.filter((a) => a.status === 201).map((a) => a.body.serial_number as number).sort((a, b) => a - b);
    t.same(serials, Array.from({ length: 11 }, (_, i) => before + 1 + i), 'distinct, consecutive, positive');
    const fresh = await s.json(`${ONE}/${answers[0]!.body.id}`, { token });
    t.equal(fresh.body.serial_number, answers[0]!.body.serial_number, 'the stored number is the one answered');
    t.equal((await post({})).body.serial_number, before + 12, 'the next create continues the sequence');
  });

  await t.test('a PATCH whose details were checked on a row that changed meanwhile re-checks: no update is lost', async (t) => {
    const created = await post({ title: 'Race', event_details: { count: 2 } });
    const events = s.server.runtime.services.events as unknown as { checkDetails: (...args: unknown[]) => Promise<unknown> };
    const check = events.checkDetails.bind(events);
    let interleave = true;
    // Deterministic interleaving: while A's details are being checked, B changes the details.
    events.checkDetails = async (...args: unknown[]) => {
      const result = await check(...args);
      if (interleave) {
        interleave = false;
        const other = await s.json(`${ONE}/${created.body.id}`, send('PATCH', { event_details: { count: 5 } }, token));
        t.equal(other.status, 200, 'B changes the details');
      }
      return result;
    };
    t.teardown(() => { events.checkDetails = check; });
    const changed = await s.json(`${ONE}/${created.body.id}`, send('PATCH', { event_type: 'incident' }, token));
    t.equal(changed.status, 200, JSON.stringify(changed.body));
    const final = (await s.json(`${ONE}/${created.body.id}`, { token })).body;
    t.equal(final.event_type, 'incident', "A's type change is applied");
    t.same(final.event_details, { count: 5 }, "B's details are kept, not overwritten by the details A read before");
  });
});
