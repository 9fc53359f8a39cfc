import type { UsageSummary } from '../../../schema/compat/types.js';
import type { CatalogService } from '../catalog/service.js';
import { type RequestContext, requirePermission } from '../context.js';
import { InputError } from '../errors.js';
import type { EventType } from '../model.js';
import type { Store } from '../ports.js';

/** At most this many types per batch read, each value at most MAX_TYPE_VALUE characters. */
export const MAX_USAGE_TYPES = 200;
export const MAX_TYPE_VALUE = 100;

/**
 * Issue 28: usage summaries of the stored events of a type (what `fieldops lint --against`
 * compares a schema with). Reading one needs both the event-type catalog's view permission and
 * the permission to view events: a summary lists values the events hold.
 */
export class EventUsageService {
  constructor(private readonly deps: { store: Store; eventTypes: CatalogService<EventType> }) {}

  /** The summary for the v2 type named by `key` (id or value; 404 as the detail read). */
  async ofType(ctx: RequestContext, key: string, includeInactive: boolean): Promise<UsageSummary> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const type = await this.deps.eventTypes.get(ctx, key, includeInactive);
    return this.deps.store.repos.eventUsage.summary(tenantId, type.value);
  }

  /**
   * Summaries by type value, in the order asked (duplicates once). A value no v2 type has (a v1
   * type, or none) is summarised too: events may be recorded under it.
   */
  async ofValues(ctx: RequestContext, values: readonly string[]): Promise<UsageSummary[]> {
    requirePermission(ctx, 'view_eventtype');
    const { tenantId } = requirePermission(ctx, 'view_event');
    const wanted = [...new Set(values)];
    if (wanted.length === 0) throw InputError.field('types', 'required', 'types names at least one event type value.', ['Send ?types=a,b (comma-separated values).']);
    if (wanted.length > MAX_USAGE_TYPES) throw InputError.field('types', 'too_many', `types names at most ${MAX_USAGE_TYPES} values.`, ['Ask in several requests.']);
    const bad = wanted.find((value) => value.length === 0 || value.length > MAX_TYPE_VALUE || /[\u0000-\u001f]/.test(value));
    if (bad !== undefined) throw InputError.field('types', 'invalid', `Each value in types is 1 to ${MAX_TYPE_VALUE} characters, without control characters.`, ['Separate values with commas, without empty entries.']);
    // One snapshot and one budget for the whole answer (usage-ports.ts).
    return this.deps.store.repos.eventUsage.summaries(tenantId, wanted);
  }
}
