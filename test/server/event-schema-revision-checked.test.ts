/**
 * Issue 28 §4: an event's `schema_revision` is the revision its details were checked against.
 * Details are checked outside the write's transaction; a publish (or restore) landing between the
 * check and the write must not make the event claim the newer form. The race is forced: with a
 * fake repository that moves the type between the reads of one check (unit), and with a hook that
 * writes a new revision right after the service's check returns (both databases).
 */
import t from 'tap';
import type { ChoiceService } from '../../server/domain/choices/service.js';
import { ConflictError, InputError } from '../../server/domain/errors.js';
import { EventDetailsChecker } from '../../server/domain/events/details.js';
import type { EventType } from '../../server/domain/model.js';
import type { Repositories } from '../../server/domain/ports.js';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';

type Json = Record<string, any>;

/** A closed form with one text field `name`. */
function form(name: string) {
  return {
    json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { [name]: { type: 'string', title: name } } },
    ui: { fields: {}, headers: {}, order: ['main'], sections: { main: { label: 'Main', columns: 1, isActive: true, leftColumn: [{ name, type: 'field' }], rightColumn: [] } } },
  };
}

function row(revision: number, field: string): EventType {
  return {
    id: '6f1c2a8e-0000-4000-8000-000000000001', tenantId: 't1', value: 'spot', display: 'Spot', ordernum: null, icon: '', defaultPriority: 0, isActive: true,
    schema: JSON.stringify(form(field)), revision, createdAt: 0, updatedAt: revision, category: '', defaultState: 'new', geometryType: 'Point', isCollection: false, readonly: false,
  };
}

/** Repositories whose type answers `rows` in turn (the last one from then on), and `sequences` likewise. */
function movingRepos(rows: EventType[], sequences: number[]): { repos: Repositories; reads: () => number } {
  let finds = 0;
  let seqs = 0;
  const repos = {
    eventTypes: { find: async () => rows[Math.min(finds++, rows.length - 1)] },
    eventTypesV1: { find: async () => null },
    catalog: { latestSequence: async () => sequences[Math.min(seqs++, sequences.length - 1)] },
  } as unknown as Repositories;
  return { repos, reads: () => finds };
}

const noChoices = { validationResolver: () => async () => null } as unknown as ChoiceService;

t.test('the checker reads the sequence with the row it checks against (unit)', async (t) => {
  const checker = new EventDetailsChecker(noChoices);
  const quiet = movingRepos([row(1, 'a')], [1]);
  t.equal((await checker.check(quiet.repos, 't1', 'spot', { a: 'x' })).schemaRevision, 1, 'no race: the sequence of the row checked');

  // Revision 2 (field b) commits after the row was read at revision 1 and before the sequence read.
  const raced = movingRepos([row(1, 'a'), row(2, 'b')], [2]);
  const type = await checker.check(raced.repos, 't1', 'spot', { b: 'y' });
  t.equal(type.schemaRevision, 2, 'the read is redone: revision 2 recorded');
  t.ok(raced.reads() >= 4, 'the row was read again');
  const stale = await checker.check(movingRepos([row(1, 'a'), row(2, 'b')], [2]).repos, 't1', 'spot', { a: 'x' }).catch((error: unknown) => error);
  t.ok(stale instanceof InputError && stale.status === 400, 'and revision 2 is the form checked: details of revision 1 fail');

  const storm = movingRepos([row(1, 'a'), row(2, 'a'), row(3, 'a'), row(4, 'a'), row(5, 'a'), row(6, 'a'), row(7, 'a')], [1, 2, 3, 4]);
  const moving = await checker.check(storm.repos, 't1', 'spot', { a: 'x' }).catch((error: unknown) => error);
  t.ok(moving instanceof ConflictError && moving.status === 409, 'a type that never holds still is a 409, not a guess');
  t.equal((await checker.check(movingRepos([row(1, 'a')], [0]).repos, 't1', 'spot', { a: 'x' })).schemaRevision, null, 'no history: null');
});

t.test(`a revision written between check and write is not claimed (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const TYPE = '/api/v2.0/activity/eventtypes/spot';
  const E = '/api/v1.0/activity/events';
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'spot', display: 'Spot', schema: form('a') }, token))).status, 201);

  // Right after the service's check returns, the next form is written once (as a publish would).
  const { checker } = s.server.runtime.services.events;
  const original = checker.check.bind(checker);
  let next: string | null = null;
  checker.check = async (...args: Parameters<typeof original>) => {
    const type = await original(...args);
    if (next) {
      const field = next;
      next = null;
      const moved = await s.json(TYPE, send('PATCH', { schema: form(field) }, token));
      if (moved.status !== 200) throw new Error(`hook: ${moved.status} ${JSON.stringify(moved.body)}`);
    }
    return type;
  };
  t.teardown(() => { checker.check = original; });
  const latest = async () => ((await s.json(`${TYPE}/updates`, { token })).body as Json);

  next = 'b';
  const created = await s.json(E, send('POST', { event_type: 'spot', event_details: { a: 'x' } }, token));
  t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
  t.equal(created.body.schema_revision, 1, 'create: the revision checked (1), not the one written meanwhile (2)');
  t.ok(JSON.stringify(await latest()).includes('"b"'), 'revision 2 was written by the hook');

  next = 'c';
  const patched = await s.json(`/api/v1.0/activity/event/${created.body.id}`, send('PATCH', { event_details: { b: 'y' } }, token));
  t.equal(patched.status, 200, JSON.stringify(patched.body).slice(0, 300));
  t.equal(patched.body.schema_revision, 2, 'update: revision 2 checked, 3 written meanwhile');

  next = 'd';
  const many = await s.json(E, send('POST', [{ event_type: 'spot', event_details: { c: 'z' } }], token));
  t.equal(many.status, 201, JSON.stringify(many.body).slice(0, 300));
  const [first] = Array.isArray(many.body) ? many.body : many.body.results ?? many.body.data ?? [];
  t.equal(first?.schema_revision, 3, 'array create: revision 3 checked, 4 written meanwhile');

  const quiet = await s.json(E, send('POST', { event_type: 'spot', event_details: { d: 'w' } }, token));
  t.equal(quiet.body.schema_revision, 4, 'no race: the latest revision');
});
