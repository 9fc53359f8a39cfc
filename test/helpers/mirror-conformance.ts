/**
 * The mirror store conformance suite: what every `MirrorStore` implementation must do (store.ts
 * states the contract). Run by test/cli/mirror-store.test.ts for each implementation and setup.
 */
import type { Test } from 'tap';
import type { ApiRecord, ApplyInput, MirrorStore, ResourceUpdate } from '../../sync/mirror/store.js';

export interface StoreFactory {
  open(): Promise<MirrorStore>;
  /** Opens the same mirror again (persistence); absent for in-memory setups. */
  reopen?: () => Promise<MirrorStore>;
}

const type = (id: string, value: string, extra: Partial<ApiRecord> = {}): ApiRecord => ({ id, value, display: value.toUpperCase(), ordernum: null, is_active: true, updated_at: '2026-11-20T10:00:00.000+00:00', ...extra });
const choice = (id: string, field: string, value: string, extra: Partial<ApiRecord> = {}): ApiRecord => ({ id, field, value, display: value, ordernum: 10, is_active: true, ...extra });
const validators = (etag: string) => ({ etag: `"${etag}"`, lastModified: 'Fri, 20 Nov 2026 10:00:00 GMT', pages: [] });
const input = (syncedAt: string, updates: ResourceUpdate[], extra: Partial<ApplyInput> = {}): ApplyInput => ({ meta: { server: 'https://a.example', username: 'ana' }, syncedAt, reset: false, updates, ...extra });

export function mirrorStoreConformance(t: Test, name: string, factory: StoreFactory): void {
  t.test(`mirror store conformance: ${name}`, async (t) => {
    const store = await factory.open();
    t.teardown(() => store.close());

    await t.test('a new mirror is empty', async (t) => {
      t.equal(await store.meta(), null);
      t.same(await store.checkpoints(), []);
      t.same(await store.items('patrol_types'), []);
      t.equal(await store.document('trackedby'), null);
    });

    await t.test('apply writes data, documents, checkpoints and identity together', async (t) => {
      const progress: string[] = [];
      const summaries = await store.apply(
        input('2026-11-20T10:00:00.000Z', [
          { resource: 'patrol_types', kind: 'items', items: [type('1', 'zulu', { ordernum: 2 }), type('2', 'alpha'), type('3', 'mike', { ordernum: 1 })], validators: validators('pt1') },
          { resource: 'choices', kind: 'items', items: [choice('c1', 'species', 'lion'), choice('c2', 'species', 'elephant')], validators: validators('ch1') },
          { resource: 'trackedby', kind: 'document', document: { properties: { leader: { enum: [{ name: 'Amani' }] } } }, validators: { etag: '"tb1"', lastModified: null, pages: [] } },
        ]),
        (p) => progress.push(`${p.resource} ${p.done}/${p.total}`),
      );
      t.same(summaries.patrol_types!.added, ['zulu', 'alpha', 'mike']);
      t.same(summaries.choices!.added, ['species/lion', 'species/elephant']);
      t.same(summaries.trackedby!.added, ['trackedby']);
      t.same(progress, ['patrol_types 3/3', 'choices 2/2'], 'progress per written chunk');
      t.same((await store.items('patrol_types')).map((i) => i.value), ['mike', 'zulu', 'alpha'], 'ordered by ordernum, nulls last');
      t.same((await store.itemsByValue('patrol_types', 'zulu'))[0]!.record, type('1', 'zulu', { ordernum: 2 }), 'records kept exactly');
      t.same(await store.document('trackedby'), { properties: { leader: { enum: [{ name: 'Amani' }] } } });
      t.same(await store.meta(), { server: 'https://a.example', username: 'ana' });
      const checkpoints = await store.checkpoints();
      t.same(checkpoints.map((c) => [c.resource, c.status, c.etag, c.itemCount, c.syncedAt, c.changedAt]), [
        ['choices', 'ok', '"ch1"', 2, '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z'],
        ['patrol_types', 'ok', '"pt1"', 3, '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z'],
        ['trackedby', 'ok', '"tb1"', 1, '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z'],
      ]);
      t.equal(checkpoints[1]!.lastModified, 'Fri, 20 Nov 2026 10:00:00 GMT');
    });

    await t.test('unchanged: only the confirmation time moves', async (t) => {
      const before = await store.checkpoints();
      await store.apply(input('2026-11-20T11:00:00.000Z', [{ resource: 'patrol_types', kind: 'unchanged' }]));
      const after = (await store.checkpoints()).find((c) => c.resource === 'patrol_types')!;
      t.same({ ...after, syncedAt: '' }, { ...before.find((c) => c.resource === 'patrol_types')!, syncedAt: '' });
      t.equal(after.syncedAt, '2026-11-20T11:00:00.000Z');
      t.equal(after.changedAt, '2026-11-20T10:00:00.000Z');
    });

    await t.test('a new list: additions, updates, deactivations, reactivations, removals', async (t) => {
      await store.apply(input('2026-11-20T12:00:00.000Z', [{ resource: 'choices', kind: 'items', items: [choice('c1', 'species', 'lion', { is_active: false }), choice('c2', 'species', 'elephant')], validators: validators('ch2') }]));
      const summaries = await store.apply(
        input('2026-11-20T13:00:00.000Z', [
          { resource: 'patrol_types', kind: 'items', items: [type('1', 'zulu', { ordernum: 2, display: 'Zulu!' }), type('3', 'mike', { ordernum: 1, is_active: false }), type('4', 'echo')], validators: validators('pt2') },
          { resource: 'choices', kind: 'items', items: [choice('c1', 'species', 'lion'), choice('c2', 'species', 'elephant')], validators: validators('ch3') },
        ]),
      );
      t.same(summaries.patrol_types, { added: ['echo'], updated: ['zulu'], removed: ['alpha'], deactivated: ['mike'], reactivated: [] });
      t.same(summaries.choices, { added: [], updated: [], removed: [], deactivated: [], reactivated: ['species/lion'] });
      const items = await store.items('patrol_types');
      t.same(items.map((i) => [i.value, i.isActive, i.display]), [['mike', false, 'MIKE'], ['zulu', true, 'Zulu!'], ['echo', true, 'ECHO']]);
      const again = await store.apply(input('2026-11-20T14:00:00.000Z', [{ resource: 'patrol_types', kind: 'items', items: items.map((i) => i.record), validators: validators('pt2') }]));
      t.same(again.patrol_types, { added: [], updated: [], removed: [], deactivated: [], reactivated: [] }, 'the same list changes nothing');
      const checkpoint = (await store.checkpoints()).find((c) => c.resource === 'patrol_types')!;
      t.equal(checkpoint.changedAt, '2026-11-20T13:00:00.000Z', 'changedAt stays when nothing changed');
      t.equal(checkpoint.syncedAt, '2026-11-20T14:00:00.000Z');
    });

    await t.test('unavailable: status recorded, validators dropped, data kept', async (t) => {
      await store.apply(input('2026-11-20T15:00:00.000Z', [{ resource: 'trackedby', kind: 'unavailable', status: 'forbidden' }]));
      const checkpoint = (await store.checkpoints()).find((c) => c.resource === 'trackedby')!;
      t.same([checkpoint.status, checkpoint.etag, checkpoint.lastModified], ['forbidden', null, null]);
      t.ok(await store.document('trackedby'), 'document kept');
    });

    await t.test('a failing apply changes nothing at all', async (t) => {
      const snapshot = async () => ({ meta: await store.meta(), checkpoints: await store.checkpoints(), types: await store.items('patrol_types'), choices: await store.items('choices'), doc: await store.document('trackedby') });
      const before = await snapshot();
      await t.rejects(
        store.apply(
          input('2026-11-20T16:00:00.000Z', [
            { resource: 'choices', kind: 'items', items: [choice('c9', 'colour', 'red')], validators: validators('ch9') },
            // The same id twice cannot be stored: the whole apply must roll back, the choices above included.
            { resource: 'patrol_types', kind: 'items', items: [type('5', 'x'), type('5', 'y')], validators: validators('pt9') },
          ], { meta: { server: 'https://b.example', username: 'bob' } }),
        ),
      );
      t.same(await snapshot(), before);
    });

    await t.test('reset: another server\'s data is dropped in the same transaction', async (t) => {
      await store.apply(input('2026-11-20T17:00:00.000Z', [{ resource: 'patrol_types', kind: 'items', items: [type('9', 'other')], validators: validators('b1') }], { reset: true, meta: { server: 'https://b.example', username: null } }));
      t.same(await store.meta(), { server: 'https://b.example', username: null });
      t.same((await store.items('patrol_types')).map((i) => i.value), ['other']);
      t.same(await store.items('choices'), []);
      t.equal(await store.document('trackedby'), null);
      t.same((await store.checkpoints()).map((c) => c.resource), ['patrol_types']);
    });

    if (factory.reopen) {
      await t.test('what was committed survives closing and reopening', async (t) => {
        const again = await factory.reopen!();
        t.teardown(() => again.close());
        t.same((await again.items('patrol_types')).map((i) => i.value), ['other']);
        t.equal((await again.checkpoints())[0]!.etag, '"b1"');
      });
    }
  });
}
