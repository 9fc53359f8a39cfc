import { randomUUID } from 'node:crypto';
import { migrateV1ToV2 } from '../../../schema/index.js';
import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import type { CatalogService } from '../catalog/service.js';
import { toFieldIssue } from '../catalog/schema-write.js';
import { InputError } from '../errors.js';
import type { EventType } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { activeChoiceLists } from './v1.js';

export interface MigrationEntry {
  event_type: string;
  v2_schema: unknown;
  new_choices: Array<{ field: string; value: string; display: string; ordernum: number }>;
  warnings: ReturnType<typeof toFieldIssue>[];
  errors: ReturnType<typeof toFieldIssue>[];
}

/**
 * `POST /api/v2.0/activity/eventtypes/migrate` (CONTRACT §5): v1 event types through the
 * toolkit's migrator. A dry run only reports. A real run converts every listed type in one
 * transaction, all or none: choices created for inline enums, each v2 type created (or its
 * schema replaced when the value already exists as v2), the v1 type marked as migrated.
 */
export class EventTypeMigrationService {
  constructor(private readonly deps: { store: Store; clock: Clock; eventTypes: CatalogService<EventType> }) {}

  async migrate(ctx: RequestContext, body: unknown, origin: string): Promise<{ applied: boolean; results: MigrationEntry[] }> {
    const principal = requirePermission(ctx, 'view_eventtype');
    const { values, dryRun } = readMigrateBody(body);
    if (!dryRun) {
      requirePermission(ctx, 'add_eventtype');
      requirePermission(ctx, 'change_eventtype');
      requirePermission(ctx, 'add_choice');
    }
    const { tenantId } = principal;
    const run = async (repos: Repositories) => {
      const choices = await activeChoiceLists(repos, tenantId);
      const results: MigrationEntry[] = [];
      for (const value of values) {
        const v1 = await repos.eventTypesV1.find(tenantId, value);
        if (!v1) {
          results.push({ event_type: value, v2_schema: null, new_choices: [], warnings: [], errors: [{ code: 'not_found', category: 'reference', message: `No v1 event type "${value}".`, hints: ['List them at /api/v1.0/activity/events/eventtypes.'], pointer: '' }] });
          continue;
        }
        const result = migrateV1ToV2(v1.schemaText, { baseUrl: `${origin}/api`, choices });
        results.push({ event_type: value, v2_schema: result.document, new_choices: result.newChoices, warnings: result.warnings.map(toFieldIssue), errors: result.errors.map(toFieldIssue) });
      }
      return results;
    };
    if (dryRun) return { applied: false, results: await run(this.deps.store.repos) };
    const outcome = await this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, 'eventtypes');
      await repos.catalog.lock(tenantId, 'choices');
      const results = await run(repos);
      if (results.some((entry) => entry.errors.length > 0)) return { applied: false, results };
      const now = this.deps.clock.now();
      for (const entry of results) await this.apply(repos, ctx, tenantId, entry, now);
      await repos.catalog.bump(tenantId, 'eventtypes', now);
      await repos.catalog.bump(tenantId, 'choices', now);
      return { applied: true, results };
    });
    if (!outcome.applied) throw new MigrationRefused(outcome.results);
    return outcome;
  }

  private async apply(repos: Repositories, ctx: RequestContext, tenantId: string, entry: MigrationEntry, now: number): Promise<void> {
    const v1 = (await repos.eventTypesV1.find(tenantId, entry.event_type))!;
    for (const choice of entry.new_choices) {
      if (await repos.choices.findByValue(tenantId, choice.field, choice.value)) continue;
      await repos.choices.insert({ id: randomUUID(), tenantId, field: choice.field, value: choice.value, display: choice.display, ordernum: choice.ordernum, icon: '', isActive: true, createdAt: now, updatedAt: now });
    }
    const schema = JSON.stringify(entry.v2_schema);
    const existing = await this.deps.eventTypes.findWithin(repos, tenantId, v1.value);
    const saved = existing
      ? await this.deps.eventTypes.updateWithin(repos, ctx, existing, { schema } as Partial<EventType>, now)
      : await this.deps.eventTypes.createWithin(repos, ctx, tenantId, { value: v1.value, display: v1.display, defaultPriority: v1.defaultPriority, schema } as Partial<EventType>, now);
    await repos.eventTypesV1.update({ ...v1, migratedTo: saved.id, updatedAt: now });
    await repos.catalog.bump(tenantId, 'eventtypes_v1', now);
  }
}

/** A real run with errors: nothing was applied; the body still carries every result. */
export class MigrationRefused extends InputError {
  constructor(readonly results: MigrationEntry[]) {
    super('Migration refused: some event types cannot be migrated; nothing was changed.');
  }
}

function readMigrateBody(body: unknown): { values: string[]; dryRun: boolean } {
  const input = (body ?? {}) as { event_types?: unknown; dry_run?: unknown };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw InputError.field('body', 'invalid_type', 'Expected a JSON object.');
  const values = input.event_types;
  if (!Array.isArray(values) || values.length === 0 || values.length > 200 || !values.every((value) => typeof value === 'string' && value.length <= 50)) {
    throw InputError.field('event_types', 'invalid', 'event_types must list 1 to 200 v1 event type values.', ['For example {"event_types": ["carcass_rep"], "dry_run": true}.']);
  }
  if (input.dry_run !== undefined && typeof input.dry_run !== 'boolean') throw InputError.field('dry_run', 'invalid_type', 'dry_run must be a boolean.');
  return { values: [...new Set(values as string[])], dryRun: input.dry_run ?? true };
}

