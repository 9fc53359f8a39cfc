/** The mirror store over Knex (SQLite). See store.ts for the contract. */
import type { Knex } from 'knex';
import { checkpointRow, contentHash, itemLabel, itemRow, toCheckpoint, toMirrorItem } from './rows.js';
import {
  emptySummary, ITEM_RESOURCES,
  type ApiRecord, type ApplyInput, type ApplyProgress, type ChangeSummary, type Checkpoint, type ItemResource, type MirrorItem,
  type KeptUsage, type MirrorMeta, type MirrorStore, type ResourceName, type ResourceUpdate,
} from './store.js';
import type { UsageSummary } from '../../schema/compat/types.js';

const CHUNK = 250;

export class KnexMirrorStore implements MirrorStore {
  constructor(private readonly knex: Knex) {}

  async meta(): Promise<MirrorMeta | null> {
    const rows: Array<{ key: string; value: string }> = await this.knex('mirror_meta').select('key', 'value');
    const map = new Map(rows.map((r) => [r.key, r.value]));
    const server = map.get('server');
    return server ? { server, username: map.get('username') ?? null } : null;
  }

  async checkpoints(): Promise<Checkpoint[]> {
    return (await this.knex('checkpoints').select('*').orderBy('resource')).map(toCheckpoint);
  }

  async apply(input: ApplyInput, onProgress?: ApplyProgress): Promise<Partial<Record<ResourceName, ChangeSummary>>> {
    return this.knex.transaction(async (trx) => {
      if (input.reset) {
        for (const table of [...ITEM_RESOURCES, 'documents', 'checkpoints', 'usage_summaries', 'usage_checks']) await trx(table).delete();
      }
      for (const [key, value] of Object.entries(input.meta)) {
        if (value === null) await trx('mirror_meta').where({ key }).delete();
        else await trx('mirror_meta').insert({ key, value }).onConflict('key').merge();
      }
      const previous = new Map((await trx('checkpoints').select('*')).map((row) => [row.resource as string, toCheckpoint(row)]));
      const summaries: Partial<Record<ResourceName, ChangeSummary>> = {};
      for (const update of input.updates) {
        const before = previous.get(update.resource);
        const checkpoint = await this.applyOne(trx, update, before, input.syncedAt, summaries, onProgress);
        await trx('checkpoints').insert(checkpointRow(checkpoint)).onConflict('resource').merge();
      }
      return summaries;
    });
  }

  private async applyOne(
    trx: Knex.Transaction,
    update: ResourceUpdate,
    before: Checkpoint | undefined,
    syncedAt: string,
    summaries: Partial<Record<ResourceName, ChangeSummary>>,
    onProgress: ApplyProgress | undefined,
  ): Promise<Checkpoint> {
    const base: Checkpoint = before ?? { resource: update.resource, status: 'ok', etag: null, lastModified: null, pages: [], syncedAt, changedAt: null, itemCount: 0 };
    switch (update.kind) {
      case 'unchanged':
        return { ...base, status: 'ok', syncedAt };
      case 'unavailable':
        return { ...base, status: update.status, etag: null, lastModified: null, pages: [], syncedAt };
      case 'items': {
        const summary = await replaceItems(trx, update.resource, update.items, onProgress);
        summaries[update.resource] = summary;
        const changed = !before || Object.values(summary).some((list) => list.length > 0);
        return { ...base, ...update.validators, status: 'ok', syncedAt, changedAt: changed ? syncedAt : base.changedAt, itemCount: update.items.length };
      }
      case 'document': {
        const hash = contentHash(update.document);
        const existing = await trx('documents').where({ name: update.resource }).first('hash');
        const summary = emptySummary();
        if (existing?.hash !== hash) {
          await trx('documents').insert({ name: update.resource, body: JSON.stringify(update.document), hash }).onConflict('name').merge();
          (existing ? summary.updated : summary.added).push(update.resource);
        }
        summaries[update.resource] = summary;
        const changed = existing?.hash !== hash;
        return { ...base, ...update.validators, status: 'ok', syncedAt, changedAt: changed ? syncedAt : base.changedAt, itemCount: 1 };
      }
    }
  }

  async items(resource: ItemResource): Promise<MirrorItem[]> {
    return (await this.knex(resource).select('*').orderByRaw('ordernum is null, ordernum, value')).map(toMirrorItem);
  }

  async itemsByValue(resource: ItemResource, value: string): Promise<MirrorItem[]> {
    return (await this.knex(resource).select('*').where({ value }).orderBy('id')).map(toMirrorItem);
  }

  async document(name: 'trackedby'): Promise<unknown | null> {
    const row = await this.knex('documents').where({ name }).first('body');
    return row ? JSON.parse(row.body) : null;
  }

  async usageSummaries(eventTypes: readonly string[]): Promise<KeptUsage[]> {
    const kept: KeptUsage[] = [];
    for (let i = 0; i < eventTypes.length; i += CHUNK) {
      const rows = await this.knex('usage_summaries').whereIn('event_type', eventTypes.slice(i, i + CHUNK)).select('*');
      for (const row of rows) kept.push({ eventType: row.event_type, summary: JSON.parse(row.summary), fetchedAt: row.fetched_at, etag: row.etag ?? null });
    }
    return kept;
  }

  async usageCheckedAt(): Promise<string | null> {
    const row = await this.knex('usage_checks').where({ scope: 'all' }).first('checked_at');
    return row?.checked_at ?? null;
  }

  async keepUsageSummaries(input: { summaries: readonly UsageSummary[]; fetchedAt: string; etag: string | null; checkedAt: string }): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const rows = input.summaries.map((s) => ({ event_type: s.event_type, summary: JSON.stringify(s), fetched_at: input.fetchedAt, etag: input.etag }));
      for (let i = 0; i < rows.length; i += CHUNK) await trx('usage_summaries').insert(rows.slice(i, i + CHUNK)).onConflict('event_type').merge();
      await trx('usage_checks').insert({ scope: 'all', checked_at: input.checkedAt }).onConflict('scope').merge();
    });
  }

  close(): Promise<void> {
    return this.knex.destroy();
  }
}

/** Makes the table equal to `items`: inserts, rewrites changed rows, deletes absent ones. */
async function replaceItems(trx: Knex.Transaction, resource: ItemResource, items: ApiRecord[], onProgress?: ApplyProgress): Promise<ChangeSummary> {
  const columns = resource === 'choices' ? ['id', 'value', 'field', 'hash', 'is_active'] : ['id', 'value', 'hash', 'is_active'];
  const existing = new Map<string, { value: string; field?: string; hash: string; is_active: number | boolean }>(
    (await trx(resource).select(columns)).map((row) => [row.id, row]),
  );
  const summary = emptySummary();
  const rewrite: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  for (const record of items) {
    seen.add(record.id);
    const row = itemRow(resource, record);
    const old = existing.get(record.id);
    const label = itemLabel(resource, row as { value: string; field?: string });
    if (!old) summary.added.push(label);
    else if (old.hash === row.hash) continue;
    else if (Boolean(old.is_active) && !row.is_active) summary.deactivated.push(label);
    else if (!old.is_active && row.is_active) summary.reactivated.push(label);
    else summary.updated.push(label);
    rewrite.push(row);
  }
  const removed = [...existing.entries()].filter(([id]) => !seen.has(id));
  summary.removed.push(...removed.map(([, row]) => itemLabel(resource, row)));
  const stale = [...removed.map(([id]) => id), ...rewrite.map((row) => row.id as string).filter((id) => existing.has(id))];
  for (let i = 0; i < stale.length; i += CHUNK) await trx(resource).whereIn('id', stale.slice(i, i + CHUNK)).delete();
  for (let i = 0; i < rewrite.length; i += CHUNK) {
    await trx(resource).insert(rewrite.slice(i, i + CHUNK));
    onProgress?.({ resource, done: Math.min(i + CHUNK, rewrite.length), total: rewrite.length });
  }
  return summary;
}
