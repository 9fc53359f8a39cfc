/**
 * Issue 28 §4: `?render=as_recorded` reads are bounded by the distinct (type, revision) pairs of
 * a page, never by its size: one type read and one history read per type, one fold per pair,
 * one resolution per choice list. (No database: the renderer over counting fakes.)
 */
import t from 'tap';
import type { EventRecord } from '../../server/domain/events/model.js';
import { RecordedDetailsRenderer } from '../../server/domain/events/render.js';
import type { RevisionEntry } from '../../server/domain/model.js';
import type { Repositories } from '../../server/domain/ports.js';

const TENANT = 'tenant-1';
const TYPE_ID = 'type-1';

const doc = (properties: Record<string, unknown>, left: string[]) => ({
  json: { type: 'object', properties },
  ui: { fields: {}, headers: {}, order: ['s'], sections: { s: { label: 'S', columns: 1, isActive: true, leftColumn: left.map((name) => ({ name, type: 'field' })), rightColumn: [] } } },
});

const species = { type: 'string', title: 'Species', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=species' }] };
const entry = (sequence: number, fields: Record<string, unknown>, snapshot: boolean): RevisionEntry => ({
  id: `r${sequence}`, tenantId: TENANT, catalog: 'eventtypes', itemId: TYPE_ID, sequence, action: snapshot ? 'created' : 'updated', time: sequence,
  userId: null, username: null, updatedFields: snapshot ? null : fields, snapshot: snapshot ? fields : null,
});
const HISTORY = [
  entry(1, { value: 'spotting', schema: doc({ species }, ['species']) }, true),
  entry(2, { schema: doc({ species, size: { type: 'string', title: 'Size', enum: ['s', 'l'], 'x-enumExtra': { s: { display: 'Small' } } } }, ['size', 'species']) }, false),
  entry(3, { schema: doc({ species }, ['species']) }, false),
];

function fakeRepos() {
  const calls = { find: 0, revisionsUpTo: [] as number[] };
  const repos = {
    eventTypes: { find: async (_tenant: string, value: string) => { calls.find++; return value === 'spotting' ? { id: TYPE_ID, value } : null; } },
    catalog: {
      revisionsUpTo: async (tenant: string, catalog: string, itemId: string, upTo: number) => {
        calls.revisionsUpTo.push(upTo);
        return tenant === TENANT && catalog === 'eventtypes' && itemId === TYPE_ID ? HISTORY.filter((e) => e.sequence <= upTo) : [];
      },
    },
  } as unknown as Repositories;
  return { repos, calls };
}

const event = (n: number, eventType: string, schemaRevision: number | null, eventDetails: Record<string, unknown>): EventRecord => ({
  id: `e${n}`, tenantId: TENANT, eventType, title: '', time: 0, latitude: null, longitude: null, priority: 0, state: 'new', eventDetails,
  createdByUserId: null, createdByClientId: null, createdAt: 0, updatedAt: 0, serialNumber: n, revision: 1, schemaRevision,
});

t.test('a page of 100 events of one type at two revisions: one type read, one history read, one list resolution', async (t) => {
  const { repos, calls } = fakeRepos();
  let resolutions = 0;
  const renderer = new RecordedDetailsRenderer(repos, TENANT, async ({ field }) => {
    resolutions++;
    return field === 'species' ? [{ value: 'lion', display: 'Lion' }] : null;
  });
  const events = Array.from({ length: 100 }, (_, i) => event(i, 'spotting', i % 2 === 0 ? 2 : 3, { species: 'lion', size: 's' }));
  events.push(event(100, 'legacy_v1', null, { guards: 2 }));
  const rendered = await renderer.render(events);
  t.equal(calls.find, 1, 'the type is read once');
  t.same(calls.revisionsUpTo, [3], 'its history once, up to the highest revision the page needs');
  t.equal(resolutions, 1, 'the choice list is resolved once');
  t.same(rendered.get('e0'), [
    { key: 'size', title: 'Size', value: 's', display: 'Small' },
    { key: 'species', title: 'Species', value: 'lion', display: 'Lion' },
  ], 'revision 2: its layout order, titles, choice names');
  t.same(rendered.get('e1'), [
    { key: 'species', title: 'Species', value: 'lion', display: 'Lion' },
    { key: 'size', title: 'size', value: 's', display: 's' },
  ], 'revision 3 no longer describes size: it trails under its key');
  t.same(rendered.get('e100'), [{ key: 'guards', title: 'guards', value: 2, display: '2' }], 'an unknown revision: every key as stored');

  // The same renderer (one request) asked again: nothing more is read.
  await renderer.render(events.slice(0, 10));
  t.equal(calls.find, 1);
  t.same(calls.revisionsUpTo, [3]);
});

t.test('a revision the history does not reach, or a type no longer found: keys as stored, nothing thrown', async (t) => {
  const { repos, calls } = fakeRepos();
  const renderer = new RecordedDetailsRenderer(repos, TENANT, () => null);
  const rendered = await renderer.render([event(1, 'gone', 4, { x: [1, 2] }), event(2, 'spotting', 9, { species: ['lion', 'eland'] })]);
  t.same(rendered.get('e1'), [{ key: 'x', title: 'x', value: [1, 2], display: '[1,2]' }]);
  t.same(rendered.get('e2'), [{ key: 'species', title: 'Species', value: ['lion', 'eland'], display: 'lion, eland' }], 'revision 9 folds to the latest known (3); an unresolved list shows values');
  t.equal(calls.find, 2);
});
