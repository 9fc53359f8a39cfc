/**
 * Every server write that changes a fed record marks it, so the change log (issue 25) misses
 * nothing: table-driven through the real HTTP API (and the service or repository where no route
 * writes), each write yields exactly the expected `sync_changes` rows (kind, record id, op).
 * Also: a patrol's note or file moves its `updated_at` but not its revision (issue 26 §2),
 * and a tracked write outside a transaction throws before it writes.
 */
import t from 'tap';
import { TYPES, createType, send } from '../../helpers/catalog.js';
import { dialect, startTestServer } from '../../helpers/server.js';
import { GPS, observation, post } from '../sensors-support.js';
import { changeWatcher, type Row } from './every-write-support.js';

const P = '/api/v1.0/activity/patrols';
const E = '/api/v1.0/activity/events';
const ONE = '/api/v1.0/activity/event';
const EVENT_TYPES = '/api/v2.0/activity/eventtypes';
const CATEGORIES = '/api/v2.0/activity/eventcategories';
const CHOICES = '/api/v2.0/choices';

t.test(`every write marks what it changed (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_PATROL_SWEEP_SECONDS: '0' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  const { runtime } = s.server;
  const tenantId = (await runtime.store.repos.tenants.findByName('default'))!.id;
  const watch = await changeWatcher(runtime);
  const ok = async (status: number, expected: number, what: string, body: unknown) => {
    if (status !== expected) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  };
  const json = async (method: string, path: string, body: unknown, expected = method === 'POST' ? 201 : 200) => {
    const response = await s.json(path, send(method, body, token));
    await ok(response.status, expected, `${method} ${path}`, response.body);
    return response.body;
  };
  const upload = async (path: string, comment: string) => {
    const form = new FormData();
    form.append('filecontent.file', new Blob([Buffer.from('%PDF-1.4 a report\n')]), 'report.pdf');
    form.append('comment', comment);
    const response = await s.json(path, { method: 'POST', body: form, token });
    await ok(response.status, 201, `upload ${path}`, response.body);
    return response.body;
  };

  // Each step: writes, and the rows they must append: one per record per transaction (put unless
  // said otherwise). Ids are known only once the step ran, so each returns its expectation.
  const state: Record<string, any> = {};
  const put = (kind: string, id: string): Row => [kind, id, 'put'];
  const steps: Array<[string, () => Promise<Row[]>]> = [
    ['patrol type create', async () => {
      state.type = await createType(s, token, { value: 'fence_patrol', display: 'Fence patrol' });
      return [put('patrol_type', state.type.id)];
    }],
    ['patrol type update', async () => {
      await json('PATCH', `${TYPES}/fence_patrol`, { display: 'Fence patrol (north)' });
      return [put('patrol_type', state.type.id)];
    }],
    ['event category create and update', async () => {
      const category = await json('POST', CATEGORIES, { value: 'monitoring', display: 'Monitoring' });
      await json('PATCH', `${CATEGORIES}/monitoring`, { display: 'Monitoring (all)' });
      return [put('event_category', category.id), put('event_category', category.id)];
    }],
    ['choice create', async () => {
      state.choice = await json('POST', CHOICES, { field: 'species', value: 'lion', display: 'Lion' });
      return [put('choice', state.choice.id)];
    }],
    ['choice update', async () => {
      await json('PATCH', `${CHOICES}/${state.choice.id}`, { display: 'Lion (adult)' });
      return [put('choice', state.choice.id)];
    }],
    ['event type create', async () => {
      state.eventType = await json('POST', EVENT_TYPES, { value: 'sighting', display: 'Sighting', category: 'monitoring' });
      return [put('event_type', state.eventType.id)];
    }],
    ['event type update', async () => {
      await json('PATCH', `${EVENT_TYPES}/sighting`, { display: 'Wildlife sighting' });
      return [put('event_type', state.eventType.id)];
    }],
    ['event type rank: the moved type and every sibling renumbered', async () => {
      for (const value of ['alpha', 'bravo', 'charlie']) await json('POST', EVENT_TYPES, { value, display: value, category: 'monitoring' });
      await watch.rows(); // the creates were checked above; this step is the rank alone
      const before = await json('GET', `${EVENT_TYPES}?include_inactive=true`, undefined);
      const moved = before.find((type: any) => type.value === 'charlie');
      await json('POST', `${EVENT_TYPES}/charlie/rank`, { before_key: before.find((type: any) => type.value === 'alpha').id }, 204);
      const after = await json('GET', `${EVENT_TYPES}?include_inactive=true`, undefined);
      const changed = after.filter((type: any) => type.id === moved.id || before.find((b: any) => b.id === type.id).ordernum !== type.ordernum);
      if (changed.length < 3) throw new Error(`expected a renumbering, got ${JSON.stringify(after.map((type: any) => [type.value, type.ordernum]))}`);
      return changed.map((type: any) => put('event_type', type.id));
    }],
    ['event type delete', async () => {
      const doomed = await json('POST', EVENT_TYPES, { value: 'doomed', display: 'Doomed', category: 'monitoring' });
      await watch.rows();
      await json('DELETE', `${EVENT_TYPES}/doomed`, undefined, 204);
      return [['event_type', doomed.id, 'delete']];
    }],
    ['not fed: a v1 event type and a user', async () => {
      const schema = JSON.stringify({ schema: { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Old', type: 'object', properties: { note: { type: 'string', title: 'Note' } } }, definition: ['note'] });
      await json('POST', '/api/v1.0/activity/events/eventtypes', { value: 'old_v1', display: 'Old', schema });
      await runtime.admin.createUser({ tenant: 'default', username: 'ranger2', password: 'Ranger-Two-Passphrase-9' });
      return [];
    }],
    ['subject create with groups (one change)', async () => {
      state.subject = await runtime.services.subjects.create(tenantId, { name: 'Ranger Amani', groups: [{ name: 'Rangers north', patrolLeaders: true }, { name: 'Rangers all' }] });
      return [put('subject', state.subject.id)];
    }],
    ['subject added to a group', async () => {
      await runtime.store.transaction(async (repos) => repos.subjects.addToGroup(await repos.subjects.ensureGroup(tenantId, 'Rangers south', false, 1), state.subject.id));
      return [put('subject', state.subject.id)];
    }],
    ['a subject created by sensor intake', async () => {
      const known = new Set((await runtime.database.knex('subjects').select('id')).map((row) => row.id as string));
      const response = await post(s, GPS, observation('collar-9', 0), token);
      await ok(response.status, 201, 'intake', response.body);
      const created = (await runtime.database.knex('subjects').select('id')).map((row) => row.id as string).filter((id) => !known.has(id));
      return created.map((id) => put('subject', id));
    }],
    ['patrol create', async () => {
      state.patrol = await json('POST', P, { title: 'North fence', patrol_segments: [{ patrol_type: 'fence_patrol' }] });
      return [put('patrol', state.patrol.id)];
    }],
    ['patrol creates at once (group commit)', async () => {
      const created = await Promise.all([1, 2, 3, 4, 5].map((n) => json('POST', P, { title: `Batch ${n}`, patrol_segments: [{ patrol_type: 'fence_patrol' }] })));
      return created.map((patrol) => put('patrol', patrol.id));
    }],
    ['patrol update', async () => {
      await json('PATCH', `${P}/${state.patrol.id}`, { title: 'North fence, km 4' });
      return [put('patrol', state.patrol.id)];
    }],
    ['segment create and update', async () => {
      const segment = await json('POST', `${P}/segments`, { patrol: state.patrol.id, patrol_type: 'fence_patrol' });
      state.segment = segment;
      await json('PATCH', `${P}/segments/${segment.id}`, { scheduled_start: '2026-11-20T08:00:00+00:00' });
      return [put('patrol', state.patrol.id), put('patrol', state.patrol.id)];
    }],
    ['patrol note', async () => {
      state.note = await json('POST', `${P}/${state.patrol.id}/notes`, { text: 'Fence cut at km 4' });
      return [put('patrol', state.patrol.id)];
    }],
    ['patrol note update', async () => {
      await json('PATCH', `${P}/${state.patrol.id}/notes/${state.note.id}`, { text: 'Fence cut at km 5' });
      return [put('patrol', state.patrol.id)];
    }],
    ['patrol file and its update', async () => {
      const file = await upload(`${P}/${state.patrol.id}/files`, 'the cut');
      await json('PATCH', `${P}/${state.patrol.id}/files/${file.id}`, { comment: 'the cut, closer' });
      return [put('patrol', state.patrol.id), put('patrol', state.patrol.id)];
    }],
    ['event created on a segment: the event and the patrol', async () => {
      state.linked = await json('POST', `${P}/segments/${state.segment.id}/events`, { event_type: 'sighting', title: 'Tracks' });
      return [put('event', state.linked.id), put('patrol', state.patrol.id)];
    }],
    ['event create', async () => {
      state.event = await json('POST', E, { event_type: 'sighting', title: 'Lion seen' });
      return [put('event', state.event.id)];
    }],
    ['event update', async () => {
      await json('PATCH', `${ONE}/${state.event.id}`, { title: 'Two lions seen' });
      return [put('event', state.event.id)];
    }],
    ['event state', async () => {
      await json('PATCH', `${ONE}/${state.event.id}`, { state: 'resolved' });
      return [put('event', state.event.id)];
    }],
    ['event note, its update and delete', async () => {
      const note = await json('POST', `${ONE}/${state.event.id}/notes`, { text: 'Near the river' });
      await json('PATCH', `${ONE}/${state.event.id}/note/${note.id}`, { text: 'Near the dam' });
      await json('DELETE', `${ONE}/${state.event.id}/note/${note.id}`, undefined, 204);
      return [1, 2, 3].map(() => put('event', state.event.id));
    }],
    ['event file and its delete', async () => {
      const file = await upload(`${ONE}/${state.event.id}/files/`, 'photo');
      await json('DELETE', `${ONE}/${state.event.id}/file/${file.id}`, undefined, 204);
      return [put('event', state.event.id), put('event', state.event.id)];
    }],
    ['event delete', async () => {
      await json('DELETE', `${ONE}/${state.event.id}`, undefined, 204);
      return [['event', state.event.id, 'delete']];
    }],
    ['event delete when linked: the event gone, its patrol changed', async () => {
      await json('DELETE', `${ONE}/${state.linked.id}`, undefined, 204);
      return [['event', state.linked.id, 'delete'], put('patrol', state.patrol.id)];
    }],
  ];

  await watch.rows(); // whatever the server's start-up wrote
  for (const [name, step] of steps) {
    await t.test(name, async (t) => {
      const expected = await step();
      t.same(await watch.rows(), watch.normalise(expected), 'exactly these changes');
    });
  }

  await t.test('a patrol note moves the patrol\'s updated_at but not its revision', async (t) => {
    const read = async () => {
      const response = await s.request(`${P}/${state.patrol.id}`, { token });
      const body = (await response.json()) as any;
      return { etag: response.headers.get('etag'), revision: body.revision as number, updatedAt: body.updated_at as string };
    };
    const before = await read();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await json('POST', `${P}/${state.patrol.id}/notes`, { text: 'Another note' });
    const after = await read();
    t.ok(Date.parse(after.updatedAt) > Date.parse(before.updatedAt), `updated_at moved: ${before.updatedAt} -> ${after.updatedAt}`);
    t.equal(after.revision, before.revision, 'the revision is the same');
    t.same([before.etag, after.etag], [null, null], 'and no validator is served (rule 8)');
    const listed = await json('GET', `${P}?updated_since=${encodeURIComponent(after.updatedAt)}`, undefined);
    t.ok(listed.results.some((patrol: any) => patrol.id === state.patrol.id), 'updated_since finds it');
    await watch.rows();
  });

  await t.test('a tracked write outside a transaction throws, and writes nothing', async (t) => {
    const { repos } = runtime.store;
    const id = state.linked.id;
    await t.rejects(repos.events.touch(tenantId, state.patrol.id, 1), /tracked write outside a transaction: event/);
    await t.rejects(repos.choices.update({ ...(await repos.choices.find(tenantId, state.choice.id))!, display: 'Outside' }), /tracked write outside a transaction: choice/);
    t.equal((await repos.choices.find(tenantId, state.choice.id))!.display, 'Lion (adult)', 'the choice is unchanged');
    await t.rejects(repos.patrols.insertNote({ id, tenantId, patrolId: state.patrol.id, text: 'x', createdByUserId: null, createdByUsername: null, createdAt: 1, updatedAt: 1 }), /tracked write outside a transaction: patrol/);
    t.same(await watch.rows(), [], 'and nothing was logged');
  });
});
