/**
 * The wire base of a queued update when the entry it followed was not applied (sync/push/
 * batches.ts baseOf; review finding: such an update went out with no base at all, a blind
 * overwrite): it takes the revision it was itself recorded against, else the dead entry's, and
 * with neither it is not sent.
 */
import t from 'tap';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { baseOf } from '../../sync/push/batches.js';

const entry = (id: string, fields: Partial<OutboxEntry>): OutboxEntry => ({
  seq: 1, id, kind: 'event.update', target: 'event-1', dependsOn: null, body: {}, baseEtag: null, batchKey: null, source: null,
  baseRevision: null, baseEntry: null, status: 'pending', reason: null, theirs: null, recordedAt: '', sentAt: null, etag: null, ...fields,
} as OutboxEntry);

t.test('an update following a refused entry goes on its own recorded revision', async (t) => {
  const dead = entry('e1', { status: 'rejected', baseRevision: 3 });
  const next = entry('e2', { baseEntry: 'e1', baseRevision: 5 });
  t.same(await baseOf(next, new Set(), async (id) => (id === 'e1' ? dead : null)), { base: { revision: 5 } });
});

t.test('without a revision of its own it takes the dead entry\'s', async (t) => {
  const dead = entry('e1', { status: 'dropped', baseRevision: 3 });
  const next = entry('e2', { baseEntry: 'e1' });
  t.same(await baseOf(next, new Set(), async (id) => (id === 'e1' ? dead : null)), { base: { revision: 3 } });
});

t.test('with no revision anywhere it is not sent', async (t) => {
  const dead = entry('e1', { status: 'rejected', baseEtag: '"v1"' });
  const next = entry('e2', { baseEntry: 'e1' });
  const choice = await baseOf(next, new Set(), async (id) => (id === 'e1' ? dead : null));
  t.ok('unknown' in choice, 'refused, never sent blind');
  t.match((choice as { unknown: string }).unknown, /pull the record/);
});

t.test('a pending base entry sent in the same batch is named by key; one outside waits', async (t) => {
  const pending = entry('e1', { status: 'pending', baseRevision: 3 });
  const next = entry('e2', { baseEntry: 'e1', baseRevision: 3 });
  t.same(await baseOf(next, new Set(['e1']), async () => pending), { base: { entry: 'e1' } });
  t.same(await baseOf(next, new Set(), async () => pending), { wait: 'e1' });
});
