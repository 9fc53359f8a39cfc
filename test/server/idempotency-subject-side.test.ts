/**
 * Idempotency-Key on the subject side's writes (issue 27): subjects and group members, sources,
 * providers, assignments, messages (read state too) and POST observations. Each keyed route:
 * a repeat is answered the stored answer with `Idempotent-Replayed: true` and writes nothing
 * (the database is changed behind the server between the two, and the repeat must not undo
 * that), and the same key with another request is 422 and writes nothing either.
 */
import t from 'tap';
import { createHash, randomUUID } from 'node:crypto';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { routeTable } from '../../server/http/routes/index.js';
import { canonicalJson } from '../../server/domain/idempotency/request-hash.js';
import { SUBJECT_SIDE_FAMILIES, count, forgetAnswer, keyedJson, knexOf, newKey, replayed } from './idempotency-support.js';
import { at } from './sensors-support.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const V1 = '/api/v1.0';

type Json = Record<string, any>;
type Request = { method: string; path: string; body?: unknown };

/** One keyed write: the request (`other`: another request, for the reuse check) and what it changed. */
interface Case {
  route: string;
  label?: string;
  request(other: boolean): Promise<Request>;
  /** The state the write changed (a row count, a column). */
  state(): Promise<unknown>;
  /** Changes that state behind the server after the first write: a repeat that wrote again would undo it. */
  tamper?(): Promise<void>;
}

t.test(`the subject side's writes honour Idempotency-Key (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const cases = await casesFor(s, token);

  const writes = routeTable(s.server.runtime.services).filter((route) => UNSAFE.has(route.method) && SUBJECT_SIDE_FAMILIES.test(route.name));
  t.same(writes.filter((route) => !route.idempotent).map((route) => route.name), [], 'every unsafe route of the subject side is keyed');
  t.same([...new Set(cases.map((c) => c.route))].sort(), writes.map((route) => route.name).sort(), 'a case for each keyed route');

  const keyed = async (request: Request, key: string) => s.json(request.path, keyedJson(request.method, request.body, token, key));
  for (const c of cases) {
    await t.test(c.label ?? c.route, async (t) => {
      const key = newKey();
      const request = await c.request(false);
      const first = await keyed(request, key);
      t.ok(first.status >= 200 && first.status < 300, `${first.status} ${JSON.stringify(first.body)}`);
      t.notOk(replayed(first));
      t.match(await knexOf(s)('idempotency_keys').where({ key }).first(), { state: 'answered', op: c.route }, 'the key is stored with the write');
      await c.tamper?.();
      const before = await c.state();

      const second = await keyed(request, key);
      t.equal(second.status, first.status, 'the stored status');
      t.ok(replayed(second), 'Idempotent-Replayed: true');
      t.same(second.body, first.body, 'the stored body');
      t.same(await c.state(), before, 'the repeat wrote nothing');

      // Built first: a delete's other request makes its own target.
      const other = await c.request(true);
      const beforeReuse = await c.state();
      const reused = await keyed(other, key);
      t.equal(reused.status, 422, JSON.stringify(reused.body));
      t.equal(reused.body.idempotency_key[0].code, 'idempotency_key_reused');
      t.same(await c.state(), beforeReuse, 'another request under the key wrote nothing');
      t.equal(await count(s, 'idempotency_keys', { key }), 1);
    });
  }

  // Older than the twin wait: the repeat re-reads at once instead of waiting 5 s for an answer.
  const lose = async (key: string) => {
    await forgetAnswer(s, key);
    await knexOf(s)('idempotency_keys').where({ key }).update({ created_at: Date.now() - 60_000 });
  };

  await t.test('a committed write whose answer was lost: re-read when there is a GET of one record, else 202', async (t) => {
    const source = (await s.json(`${V1}/sources`, send('POST', { manufacturer_id: `LOST-${randomUUID()}` }, token))).body.data;
    const patchKey = newKey();
    const patch = { method: 'PATCH', path: `${V1}/source/${source.id}`, body: { model_name: 'Lost answer' } };
    t.equal((await keyed(patch, patchKey)).status, 200);
    await lose(patchKey);
    const reread = await keyed(patch, patchKey);
    t.same([reread.status, replayed(reread), reread.body.data.model_name], [200, true, 'Lost answer'], 'sources.get renders the source as it is');

    const createKey = newKey();
    const create = { method: 'POST', path: `${V1}/sources`, body: { manufacturer_id: `LOST-${randomUUID()}` } };
    t.equal((await keyed(create, createKey)).status, 201);
    await lose(createKey);
    const sources = await count(s, 'sensor_sources');
    const accepted = await keyed(create, createKey);
    t.same([accepted.status, replayed(accepted), accepted.body.status.code], [202, true, 202], 'the server chose the id: carried out, read it back');
    t.equal(await count(s, 'sensor_sources'), sources, 'and not created again');
  });

  await t.test('keys are stored with the write: a refused request leaves none, and its retry is evaluated again', async (t) => {
    const key = newKey();
    const missing = { method: 'PATCH', path: `${V1}/subjectsource/${randomUUID()}`, body: { additional: { x: 1 } } };
    t.equal((await keyed(missing, key)).status, 404);
    t.equal(await count(s, 'idempotency_keys', { key }), 0);
    t.equal((await keyed(missing, key)).status, 404, 'not a replay');
  });

  await t.test('a refused delete or update leaves no key: its retry is refused again, not replayed', async (t) => {
    const refused: Request[] = [
      { method: 'DELETE', path: `${V1}/messages/${randomUUID()}` },
      { method: 'PATCH', path: `${V1}/messages/${randomUUID()}`, body: { read: true } },
      { method: 'DELETE', path: `${V1}/source/${randomUUID()}` },
      { method: 'PATCH', path: `${V1}/source/${randomUUID()}`, body: { model_name: 'Missing' } },
      { method: 'DELETE', path: `${V1}/subject/${randomUUID()}` },
      { method: 'DELETE', path: `${V1}/subjectsource/${randomUUID()}` },
    ];
    for (const request of refused) {
      const key = newKey();
      t.equal((await keyed(request, key)).status, 404, `${request.method} ${request.path}`);
      t.equal(await count(s, 'idempotency_keys', { key }), 0, 'no key stored');
      const retry = await keyed(request, key);
      t.same([retry.status, replayed(retry)], [404, false], 'the retry is evaluated again');
    }
  });

  await t.test('subjects.create with a copied subject (its id in the body): a lost answer re-reads the subject it made', async (t) => {
    const alpha = (await s.json(`${V1}/subjects`, send('POST', { name: 'Alpha' }, token))).body.data;
    const key = newKey();
    const copy = { method: 'POST', path: `${V1}/subjects`, body: { ...alpha, name: 'Beta' } };
    const first = await keyed(copy, key);
    t.equal(first.status, 201, JSON.stringify(first.body));
    const beta = first.body.data;
    t.not(beta.id, alpha.id, 'the server chose a new id');
    await lose(key);
    const subjects = await count(s, 'subjects');
    const again = await keyed(copy, key);
    t.same([again.status, replayed(again), again.body.data.id, again.body.data.name], [201, true, beta.id, 'Beta'], 'Beta, not the Alpha the body names');
    t.equal(await count(s, 'subjects'), subjects, 'not created again');
  });

  await t.test("the query's target is part of the request: the same key with another target is 422", async (t) => {
    const to = (subjectId: string) => ({ method: 'POST', path: `${V1}/messages?subject_id=${subjectId}`, body: { text: 'Targeted by the query' } });
    const [one, two] = [(await s.json(`${V1}/subjects`, send('POST', { name: 'Query one' }, token))).body.data, (await s.json(`${V1}/subjects`, send('POST', { name: 'Query two' }, token))).body.data];
    const key = newKey();
    t.equal((await keyed(to(one.id), key)).status, 201);
    const messages = await count(s, 'messages');
    const repeat = await keyed(to(one.id), key);
    t.same([repeat.status, replayed(repeat)], [201, true], 'the same target: a replay');
    const other = await keyed(to(two.id), key);
    t.equal(other.status, 422, JSON.stringify(other.body));
    t.equal(await count(s, 'messages', { subject_id: two.id }), 0, 'nothing sent to the other subject');
    t.equal(await count(s, 'messages'), messages);

    // Two providers' sources share a manufacturer id: `?provider=` picks one.
    const shared = `SHARED-${randomUUID()}`;
    for (const provider of ['query-a', 'query-b']) t.equal((await s.json(`${V1}/sources`, send('POST', { manufacturer_id: shared, provider }, token))).status, 201);
    const patchKey = newKey();
    const patch = (provider: string) => ({ method: 'PATCH', path: `${V1}/source/${shared}?provider=${provider}`, body: { model_name: 'Picked' } });
    t.equal((await keyed(patch('query-a'), patchKey)).status, 200);
    const patchedOther = await keyed(patch('query-b'), patchKey);
    t.equal(patchedOther.status, 422, JSON.stringify(patchedOther.body));
    t.same((await knexOf(s)('sensor_sources').where({ manufacturer_id: shared }).orderBy('model_name').pluck('model_name')).sort(), ['', 'Picked'], "the other provider's source is untouched");
    const removeKey = newKey();
    const remove = (provider: string) => ({ method: 'DELETE', path: `${V1}/source/${shared}?provider=${provider}` });
    t.equal((await keyed(remove('query-a'), removeKey)).status, 204);
    t.equal((await keyed(remove('query-b'), removeKey)).status, 422);
    t.equal(await count(s, 'sensor_sources', { manufacturer_id: shared }), 1, "the other provider's source stays");

    // A route's request without its target's parameters hashes as before they counted.
    const plain = { method: 'PATCH', path: `${V1}/source/${shared}`, body: { model_name: 'Plain' } };
    const plainKey = newKey();
    t.equal((await keyed(plain, plainKey)).status, 200);
    const stored = await knexOf(s)('idempotency_keys').where({ key: plainKey }).first('request_hash');
    t.equal(stored.request_hash, createHash('sha256').update(canonicalJson(['sources.patch', { id: shared }, plain.body])).digest('hex'));
  });

  await t.test('sources.patch by manufacturer id that renames it: a lost answer re-reads the source by its id', async (t) => {
    const old = `RENAMED-${randomUUID()}`;
    const source = (await s.json(`${V1}/sources`, send('POST', { manufacturer_id: old }, token))).body.data;
    const key = newKey();
    const rename = { method: 'PATCH', path: `${V1}/source/${old}`, body: { manufacturer_id: `${old}-NEW` } };
    t.equal((await keyed(rename, key)).status, 200);
    await lose(key);
    // The old manufacturer id now names another source: re-read by the path, the replay would show it.
    t.equal((await s.json(`${V1}/sources`, send('POST', { manufacturer_id: old }, token))).status, 201);
    const again = await keyed(rename, key);
    t.same([again.status, replayed(again), again.body.data?.id, again.body.data?.manufacturer_id], [200, true, source.id, `${old}-NEW`], JSON.stringify(again.body));
  });
});

async function casesFor(s: TestServer, token: string): Promise<Case[]> {
  const db = knexOf(s);
  const post = async (path: string, body: unknown) => {
    const answer = await s.json(path, send('POST', body, token));
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return (answer.body.data ?? answer.body) as Json;
  };
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  const subject = (groups: string[] = []) => post(`${V1}/subjects`, { name: unique('Subject'), subject_subtype: 'lion', subject_groups: groups });
  const source = () => post(`${V1}/sources`, { manufacturer_id: unique('KEYED') });
  const assignment = async () => post(`${V1}/subjectsources`, { subject: (await subject()).id, source: (await source()).id, assigned_range: { lower: at(0) } });
  const message = async (to: string) => post(`${V1}/messages`, { text: unique('Hello'), receiver: { id: to } });

  const lion = await subject(['Keyed pride']);
  const member = await subject(['Keyed pride']);
  const group = (await db('subject_groups').where({ name: 'Keyed pride' }).first('id')).id as string;
  const collar = await source();
  const provider = await post(`${V1}/sourceproviders`, { provider_key: unique('keyed') });
  const assigned = await assignment();
  const unread = await message(lion.id);
  const membership = (subjectId: string) => ({ group_id: group, subject_id: subjectId });
  /** Moves the row's `updated_at` to 1: a repeated update would move it back to now. */
  const stamp = (table: string, id: string) => ({ tamper: () => db(table).where({ id }).update({ updated_at: 1 }).then(() => undefined), state: async () => Number((await db(table).where({ id }).first('updated_at')).updated_at) });
  const rows = (table: string, where: Record<string, unknown> = {}) => () => count(s, table, where);
  /** A delete: a fresh target each time (`other`: another one). */
  const remove = (route: string, path: (id: string) => string, fresh: () => Promise<Json>, table: string): Case => ({ route, request: async () => ({ method: 'DELETE', path: path((await fresh()).id) }), state: rows(table) });
  const isRead = async (id: string) => Boolean(Number((await db('messages').where({ id }).first('read')).read));

  return [
    { route: 'subjects.create', request: async (other) => ({ method: 'POST', path: `${V1}/subjects`, body: { name: other ? 'Other' : 'Keyed subject' } }), state: rows('subjects') },
    { route: 'subjects.patch', request: async (other) => ({ method: 'PATCH', path: `${V1}/subject/${lion.id}`, body: { common_name: other ? 'Other' : 'Keyed' } }), ...stamp('subjects', lion.id) },
    remove('subjects.delete', (id) => `${V1}/subject/${id}`, () => subject(), 'subjects'),
    {
      route: 'subjects.members.add',
      request: async (other) => ({ method: 'POST', path: `${V1}/subjectgroup/${group}/subjects`, body: [{ id: other ? member.id : lion.id }] }),
      tamper: () => db('subject_group_members').where(membership(lion.id)).delete().then(() => undefined),
      state: rows('subject_group_members', { group_id: group }),
    },
    {
      route: 'subjects.members.remove',
      request: async (other) => ({ method: 'DELETE', path: `${V1}/subjectgroup/${group}/subjects`, body: [{ id: other ? lion.id : member.id }] }),
      tamper: () => db('subject_group_members').insert(membership(member.id)),
      state: rows('subject_group_members', { group_id: group }),
    },
    { route: 'sources.create', request: async (other) => ({ method: 'POST', path: `${V1}/sources`, body: { manufacturer_id: other ? 'KEYED-OTHER' : 'KEYED-NEW' } }), state: rows('sensor_sources') },
    { route: 'sources.patch', request: async (other) => ({ method: 'PATCH', path: `${V1}/source/${collar.id}`, body: { model_name: other ? 'Other' : 'Keyed' } }), ...stamp('sensor_sources', collar.id) },
    remove('sources.delete', (id) => `${V1}/source/${id}`, source, 'sensor_sources'),
    { route: 'sourceproviders.create', request: async (other) => ({ method: 'POST', path: `${V1}/sourceproviders`, body: { provider_key: other ? 'keyed-other' : 'keyed-new' } }), state: rows('sensor_providers') },
    { route: 'sourceproviders.patch', request: async (other) => ({ method: 'PATCH', path: `${V1}/sourceprovider/${provider.id}`, body: { display_name: other ? 'Other' : 'Keyed' } }), ...stamp('sensor_providers', provider.id) },
    {
      route: 'subjectsources.create',
      request: async (other) => ({ method: 'POST', path: `${V1}/subjectsources`, body: { subject: lion.id, source: collar.id, assigned_range: { lower: at(other ? 30 : 10), upper: at(20) } } }),
      state: rows('subject_sources'),
    },
    { route: 'subjectsources.patch', request: async (other) => ({ method: 'PATCH', path: `${V1}/subjectsource/${assigned.id}`, body: { additional: { keyed: !other } } }), ...stamp('subject_sources', assigned.id) },
    remove('subjectsources.delete', (id) => `${V1}/subjectsource/${id}`, assignment, 'subject_sources'),
    { route: 'messages.create', request: async (other) => ({ method: 'POST', path: `${V1}/messages`, body: { text: other ? 'Other' : 'Keyed message', receiver: { id: lion.id } } }), state: rows('messages') },
    {
      route: 'messages.create',
      label: 'messages.create (bulk read)',
      request: async (other) => ({ method: 'POST', path: `${V1}/messages`, body: { ids: [unread.id], bulk_read: true, read: !other } }),
      tamper: () => db('messages').where({ id: unread.id }).update({ read: false }).then(() => undefined),
      state: () => isRead(unread.id),
    },
    {
      route: 'messages.patch',
      request: async (other) => ({ method: 'PATCH', path: `${V1}/messages/${unread.id}`, body: { read: !other } }),
      tamper: () => db('messages').where({ id: unread.id }).update({ read: false }).then(() => undefined),
      state: () => isRead(unread.id),
    },
    remove('messages.remove', (id) => `${V1}/messages/${id}`, () => message(lion.id), 'messages'),
    {
      route: 'observations.create',
      request: async (other) => ({ method: 'POST', path: `${V1}/observations`, body: [{ source: collar.manufacturer_id, recorded_at: at(other ? 2 : 1), location: { lat: -1.1, lon: 36.1 } }] }),
      // Removed behind the server: a repeat that ran again would store the fix anew.
      tamper: () => db('observations').where({ source_id: collar.id }).delete().then(() => undefined),
      state: rows('observations'),
    },
  ];
}
