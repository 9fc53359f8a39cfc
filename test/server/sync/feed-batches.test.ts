/**
 * The feed loads a page's records in batches (server/domain/sync/feed-views.ts: one read per
 * table per page; categories from the tenant's list past a handful; an event's `is_collection`
 * from one read of its page's types), and each record must still be exactly what its REST
 * detail shows: categories past the one-by-one threshold, choices, events of a collection type
 * and of a deactivated one, patrols with notes, and a statement count that does not grow with
 * the page.
 */
import t from 'tap';
import { withoutCoding } from '../../../server/http/content-coding.js';
import { send, sampleSchema } from '../../helpers/catalog.js';
import { dialect } from '../../helpers/server.js';
import { E, P, createEvent, createPatrol, feed, pullAll, startFeedServer } from './feed-support.js';

const CATEGORIES = '/api/v2.0/activity/eventcategories';
const EVENT_TYPES = '/api/v2.0/activity/eventtypes';
const CHOICES = '/api/v2.0/choices';

t.test(`sync feed: batched record loads equal the REST details (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const json = async (method: string, path: string, body: unknown, expected = method === 'POST' ? 201 : 200) => {
    const response = await s.json(path, send(method, body, token));
    if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as Record<string, any>;
  };
  // More categories than the one-by-one threshold (20), one of them deactivated.
  for (let i = 0; i < 24; i++) await json('POST', CATEGORIES, { value: `cat_${String(i).padStart(2, '0')}`, display: `Category ${i}` });
  await json('PATCH', `${CATEGORIES}/cat_03`, { is_active: false });
  for (let i = 0; i < 5; i++) await json('POST', CHOICES, { field: 'species', value: `species_${i}`, display: `Species ${i}` });
  await json('POST', EVENT_TYPES, { value: 'herd', display: 'Herd', category: 'wildlife', default_priority: 100, default_state: 'new', is_collection: true, schema: sampleSchema() });
  await json('POST', EVENT_TYPES, { value: 'retired', display: 'Retired', category: 'wildlife', default_priority: 100, default_state: 'new', is_collection: true, schema: sampleSchema() });
  const herd = (await createEvent(s, token, { event_type: 'herd' })).body.id;
  const retired = (await createEvent(s, token, { event_type: 'retired' })).body.id;
  // A collection type deactivated after its event was made: REST then says is_collection false.
  await json('PATCH', `${EVENT_TYPES}/retired`, { is_active: false });
  const plain: string[] = [];
  for (let i = 0; i < 6; i++) plain.push((await createEvent(s, token, { event_type: i % 2 ? 'sighting' : 'intrusion' })).body.id);
  const patrols: string[] = [];
  for (let i = 0; i < 4; i++) {
    const id = (await createPatrol(s, token, { title: `Boundary ${i}` })).body.id;
    patrols.push(id);
    for (let n = 0; n <= i; n++) await json('POST', `${P}/${id}/notes`, { text: `Note ${n} of patrol ${i}` });
  }

  // Counted below: one request. Wait first until PostgreSQL's (cluster-wide) horizon has passed
  // these writes, so that the counted pull is not asked again while settling.
  await feed(s, token, { cursor: null, scopes: ['cat:*', 'ev:all', 'pa:open'] });
  const statements: string[] = [];
  const knex = s.server.runtime.database.knex;
  const listen = (query: { sql: string }) => statements.push(query.sql);
  knex.on('query', listen);
  const { mirror, pages } = await pullAll(s, token, ['cat:*', 'ev:all', 'pa:open']);
  knex.off('query', listen);
  t.equal(pages, 1, 'one page');

  const records = (kind: string) => [...mirror.values()].filter((c) => c.kind === kind);
  const categories = records('event_category');
  t.equal(categories.length, 26, 'every category, the deactivated one too');
  for (const change of categories) t.same(change.record, (await s.json(`${CATEGORIES}/${change.id}`, { token })).body, `category ${(change.record as { value: string }).value}`);
  const choices = records('choice');
  t.equal(choices.length, 5);
  for (const change of choices) t.same(change.record, (await s.json(`${CHOICES}/${change.id}`, { token })).body, `choice ${(change.record as { value: string }).value}`);

  for (const id of [herd, retired, ...plain]) {
    const rest = await s.json(`${E}/${id}`, { token });
    t.same(mirror.get(`event:${id}`)?.record, rest.body, `event ${id} as its detail shows it`);
    // A detail sent compressed names its coding in the ETag; the feed's is the representation's.
    t.equal(mirror.get(`event:${id}`)?.etag, withoutCoding(rest.headers.get('etag')!));
  }
  t.equal((mirror.get(`event:${herd}`)!.record as { is_collection: boolean }).is_collection, true, 'an active collection type makes a collection');
  t.equal((mirror.get(`event:${retired}`)!.record as { is_collection: boolean }).is_collection, false, 'a deactivated one does not (as REST says)');
  for (const id of patrols) {
    const rest = await s.json(`${P}/${id}`, { token });
    t.same(mirror.get(`patrol:${id}`)?.record, rest.body, `patrol ${id} with its notes`);
    // Patrols carry no validators (rule 8): no etag on the feed either; the revision instead.
    t.equal(rest.headers.get('etag'), null);
    t.equal(mirror.get(`patrol:${id}`)?.etag, null);
    t.equal(mirror.get(`patrol:${id}`)?.revision, rest.body.revision);
  }

  // One read per table per kind, whatever the number of records: no statement repeats per record.
  const reads = (table: string) => statements.filter((sql) => new RegExp(`from ["\`]${table}["\`]`, 'i').test(sql)).length;
  t.ok(reads('event_categories') <= 1, `event categories in one read (${reads('event_categories')})`);
  t.ok(reads('choices') <= 1, `choices in one read (${reads('choices')})`);
  t.ok(reads('event_types') <= 2, `event types in at most two reads (the kind's page and the events' types): ${reads('event_types')}`);
  t.ok(reads('patrol_notes') <= 1, `patrol notes in one read (${reads('patrol_notes')})`);
  t.ok(statements.length < 40, `a bounded number of statements for the page (${statements.length})`);
});
