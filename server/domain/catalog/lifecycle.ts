import { checkCompatibility, type AllowedBreak, type CompatFinding } from '../../../schema/compat/index.js';
import { diffSchemaDocuments, resolveChoiceLookup, SchemaDiffLimitError } from '../../../schema/diff/index.js';
import type { ChoiceService } from '../choices/service.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { DomainError, InputError, NotFoundError, PreconditionFailedError, PreconditionRequiredError, ConflictError } from '../errors.js';
import { eventTypeKind } from '../event-types/kind.js';
import type { EventType } from '../model.js';
import type { Store } from '../ports.js';
import type { CatalogDraft } from './draft-ports.js';
import { foldRevisions } from './revision-fold.js';
import type { CatalogService, Precondition } from './service.js';

const CATALOG = 'eventtypes';

/**
 * The tracked fields a restore brings back, by API name. NOT `value`: events are recorded
 * under a type's value, so renaming it back would break every event recorded since (that is a
 * deliberate `breaking/renamed-value`, done by a PATCH). NOT `ordernum` (the rank's) nor
 * `is_active` (deactivation is its own decision): a restore is about what the form is.
 */
export const RESTORED_FIELDS = ['schema', 'display', 'category', 'icon', 'default_priority', 'default_state', 'geometry_type', 'is_collection', 'readonly'] as const;

/** 409 `breaking_changes`: a publish whose compatibility check found breaks not allowed. */
export class BreakingChangesError extends DomainError {
  readonly code = 'breaking_changes';
  readonly status = 409;
  constructor(
    message: string,
    readonly findings: CompatFinding[],
  ) {
    super(message);
  }
}

export type AsOf = { revision: number } | { date: number };

export interface RestorePreview {
  revision: number;
  current: number;
  would_change: boolean;
  schema_before: unknown;
  schema_after: unknown;
}

/**
 * Issue 28: the lifecycle of a v2 event type's schema — as-of reads from the history, restore
 * (a new revision equal to an old one, never a rewrite), drafts kept apart from the type, and
 * publish behind the breaking-change check. Every write goes through CatalogService.writeItem,
 * so lock, If-Match, version, history, ETag and sync feed move exactly as for a PATCH.
 */
export class SchemaLifecycleService {
  constructor(private readonly deps: { store: Store; eventTypes: CatalogService<EventType>; choices: ChoiceService }) {}

  /** The type as it stood at a revision (history sequence) or at an instant; 404 when it did not exist then. */
  /** `readAt` reads the request's revision or date: called once the caller may see the type (a 401/403/404 comes first). */
  async asOf(ctx: RequestContext, key: string, readAt: () => AsOf): Promise<{ item: EventType; revision: number; revisionTime: number }> {
    const current = await this.deps.eventTypes.get(ctx, key, true);
    const at = readAt();
    const { catalog } = this.deps.store.repos;
    const latest = await catalog.latestSequence(current.tenantId, CATALOG, current.id);
    const upTo = 'revision' in at ? at.revision : latest;
    const entries = upTo >= 1 && upTo <= latest ? await catalog.revisionsUpTo(current.tenantId, CATALOG, current.id, upTo) : [];
    const entry = 'revision' in at ? entries.find((e) => e.sequence === at.revision) : entries.filter((e) => e.time <= at.date).at(-1);
    const state = entry ? foldRevisions(entries, entry.sequence) : null;
    if (!entry || !state) throw new NotFoundError('The event type did not exist at that revision or date.');
    return { item: itemFromState(current, state, entry.time), revision: entry.sequence, revisionTime: entry.time };
  }

  /**
   * Writes a new revision whose restorable fields equal revision N's. If-Match is required for
   * the write (428 without); a dry run needs none (it is checked when sent) and writes nothing.
   * The restored fields pass the normal write checks (schema rules, category exists).
   */
  async restore(ctx: RequestContext, key: string, revision: number, precondition: Precondition | undefined, dryRun: boolean): Promise<EventType | RestorePreview> {
    // Who may, and whether it exists, before what the request lacks: another tenant's type is a 404 whatever is sent.
    requirePermission(ctx, eventTypeKind.permissions.change);
    await this.deps.eventTypes.get(ctx, key, true);
    if (!precondition && !dryRun) throw new PreconditionRequiredError('A restore needs If-Match with the event type\'s current ETag.');
    return this.deps.eventTypes.writeItem(ctx, key, precondition, async (repos, current, now) => {
      const latest = await repos.catalog.latestSequence(current.tenantId, CATALOG, current.id);
      if (!Number.isInteger(revision) || revision < 1 || revision > latest) {
        throw InputError.field('revision', 'invalid', `No revision ${revision}: this event type has revisions 1 to ${latest}.`, ['See its history at …/updates.']);
      }
      const state = foldRevisions(await repos.catalog.revisionsUpTo(current.tenantId, CATALOG, current.id, revision), revision) ?? {};
      const body = Object.fromEntries(RESTORED_FIELDS.filter((name) => name in state).map((name) => [name, state[name]]));
      const fields = eventTypeKind.readBody(body, 'patch');
      if (dryRun) {
        const next = { ...current, ...fields };
        return {
          revision,
          current: latest,
          would_change: eventTypeKind.tracked.some(({ field }) => JSON.stringify(current[field]) !== JSON.stringify(next[field])),
          schema_before: JSON.parse(current.schema),
          schema_after: JSON.parse(next.schema),
        };
      }
      return this.deps.eventTypes.updateWithin(repos, ctx, current, fields, now, `Restored revision ${revision}.`);
    });
  }

  async getDraft(ctx: RequestContext, key: string): Promise<{ item: EventType; draft: CatalogDraft }> {
    const item = await this.itemForDrafts(ctx, key);
    const draft = await this.deps.store.repos.catalogDrafts.get(item.tenantId, CATALOG, item.id);
    if (!draft) throw new NotFoundError('This event type has no draft.');
    return { item, draft };
  }

  /** Stores (replaces) the type's draft, validated as a PATCH `{"schema": …}` would be; based on the current sequence. */
  async putDraft(ctx: RequestContext, key: string, body: unknown): Promise<{ item: EventType; draft: CatalogDraft }> {
    requirePermission(ctx, eventTypeKind.permissions.change);
    await this.deps.eventTypes.get(ctx, key, true); // 404 before the body is judged
    const schema = readDraftBody(body);
    // Held under the catalog lock, so that based_on is the sequence the draft was written against.
    return this.deps.eventTypes.writeItem(ctx, key, undefined, async (repos, item, now) => {
      // A draft publish could never compare is refused now, not at publish (same limits as publish's check).
      withinDiffLimits(() => diffSchemaDocuments(JSON.parse(item.schema), JSON.parse(schema)));
      const user = ctx.principal ? actingUser(ctx.principal) : null;
      const draft: CatalogDraft = {
        tenantId: item.tenantId, catalog: CATALOG, itemId: item.id, schema,
        basedOnSequence: await repos.catalog.latestSequence(item.tenantId, CATALOG, item.id),
        updatedAt: now, updatedByUserId: user?.id ?? null, updatedByUsername: user?.username ?? null,
      };
      await repos.catalogDrafts.put(draft);
      return { item, draft };
    });
  }

  async discardDraft(ctx: RequestContext, key: string): Promise<void> {
    const item = await this.itemForDrafts(ctx, key);
    if (!(await this.deps.store.repos.catalogDrafts.delete(item.tenantId, CATALOG, item.id))) throw new NotFoundError('This event type has no draft.');
  }

  /**
   * Makes the draft current: 412 when the type moved past the draft's base (unless `rebase`) or
   * If-Match is stale; 409 `breaking_changes` when the compatibility check against what stored
   * events hold finds a break not allowed. The new revision's history entry notes the allowed
   * breaks with their reasons; the draft is removed in the same transaction.
   */
  async publish(ctx: RequestContext, key: string, options: { allow: AllowedBreak[]; rebase: boolean }, precondition?: Precondition): Promise<EventType> {
    const { draft: seen, item: before } = await this.getDraft(ctx, key);
    // Choice lists resolved before the transaction (the resolver reads outside it), for the union
    // of the lists the current schema and the draft reference. The check inside compares exactly
    // these two documents: if either changed meanwhile, some list may be missing, so it refuses.
    const choices = await resolveChoiceLookup([JSON.parse(before.schema), JSON.parse(seen.schema)], this.deps.choices.resolverFor(ctx));
    return this.deps.eventTypes.writeItem(ctx, key, precondition, async (repos, current, now) => {
      const draft = await repos.catalogDrafts.get(current.tenantId, CATALOG, current.id);
      if (!draft) throw new NotFoundError('This event type has no draft.');
      if (draft.schema !== seen.schema) throw new ConflictError('The draft changed while it was being published; publish again.');
      if (current.schema !== before.schema) throw new ConflictError('The event type changed while the draft was being published; publish again.');
      const latest = await repos.catalog.latestSequence(current.tenantId, CATALOG, current.id);
      if (latest > draft.basedOnSequence && !options.rebase) {
        throw new PreconditionFailedError(`The event type has changed since the draft was written (draft based on revision ${draft.basedOnSequence}, now ${latest}); review and publish with rebase=true.`);
      }
      const fields = eventTypeKind.readBody({ schema: JSON.parse(draft.schema) }, 'patch');
      const usage = await repos.eventUsage.summary(current.tenantId, current.value);
      const { findings } = withinDiffLimits(() => checkCompatibility({
        before: JSON.parse(current.schema), after: JSON.parse(fields.schema ?? draft.schema), beforeValue: current.value, afterValue: current.value,
        usage, choices, allow: options.allow,
      }));
      const refused = findings.filter((finding) => finding.severity === 'error');
      if (refused.length > 0) throw new BreakingChangesError(`The draft breaks ${refused.length} thing(s) that stored events depend on.`, findings);
      const saved = await this.deps.eventTypes.updateWithin(repos, ctx, current, fields, now, publishNote(draft, findings));
      await repos.catalogDrafts.delete(current.tenantId, CATALOG, current.id);
      return saved;
    });
  }

  /** Drafts are edited by those who may change the type; its existence is checked first (another tenant's: 404). */
  private async itemForDrafts(ctx: RequestContext, key: string): Promise<EventType> {
    requirePermission(ctx, eventTypeKind.permissions.change);
    return this.deps.eventTypes.get(ctx, key, true);
  }
}

/** `{"schema": {json, ui}}` and nothing else, through the PATCH path (rules 1–8 of "Writing a schema"). */
function readDraftBody(body: unknown): string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw InputError.field('body', 'invalid_type', 'Expected a JSON object.', ['Send {"schema": {"json": …, "ui": …}}.']);
  const extra = Object.keys(body).filter((name) => name !== 'schema');
  if (extra.length > 0) throw InputError.field(extra[0]!, 'unknown_field', `Unknown field "${extra[0]}".`, ['A draft body is {"schema": {json, ui}} only.']);
  if (!('schema' in body)) throw InputError.field('schema', 'required', 'This field is required.', ['Send {"schema": {"json": …, "ui": …}}.']);
  return eventTypeKind.readBody(body, 'patch').schema!;
}

/**
 * Runs a schema comparison; a document beyond the diff engine's limits (fields, depth, UI
 * entries) is bad input — 400, field `schema`, code `schema_diff_limit`, the engine's pointer —
 * never a 500.
 */
function withinDiffLimits<R>(compare: () => R): R {
  try {
    return compare();
  } catch (error) {
    if (!(error instanceof SchemaDiffLimitError)) throw error;
    const message = `The schema is too large to compare: ${error.message}.`;
    throw new InputError(message, { schema: [{ code: error.code, message, pointer: error.pointer, hints: ['Split the type, or reduce the schema\'s fields, nesting or UI entries below the limit.'] }] });
  }
}

/** The type with its tracked fields as in `state` (history API names); fields the history lacks stay as now. */
function itemFromState(current: EventType, state: Record<string, unknown>, time: number): EventType {
  const item: Record<string, unknown> = { ...current, updatedAt: time };
  for (const { field, apiName } of eventTypeKind.tracked) {
    if (!(apiName in state)) continue;
    item[field] = field === 'schema' ? JSON.stringify(state[apiName]) : state[apiName];
  }
  return item as unknown as EventType;
}

/** The history note of a publish: its base, and each allowed break with its reason. */
function publishNote(draft: CatalogDraft, findings: CompatFinding[]): string {
  const allowed = findings.filter((finding) => finding.allowed);
  const lines = allowed.map((f) => `${f.rule}${f.field ? ` (${f.field})` : ''}, ${f.affected_events}${f.affected_at_least ? '+' : ''} event(s): ${f.allowed!.reason}`);
  return [`Published from a draft based on revision ${draft.basedOnSequence}.`, ...(lines.length > 0 ? ['Allowed breaking changes:', ...lines] : [])].join('\n');
}
