import { COMPAT_RULES, type AllowedBreak, type CompatRule } from '../../../schema/compat/types.js';
import type { Precondition } from '../../domain/catalog/service.js';
import { type AsOf, BreakingChangesError, type SchemaLifecycleService } from '../../domain/catalog/lifecycle.js';
import type { CatalogDraft } from '../../domain/catalog/draft-ports.js';
import { InputError } from '../../domain/errors.js';
import type { EventType } from '../../domain/model.js';
import { parseIsoWithOffset } from '../../domain/time-input.js';
import { toIso } from '../../db/time.js';
import { ifMatchSatisfied } from '../conditional.js';
import { errorBody } from '../error-body.js';
import { presentEventType } from '../presenters.js';
import { queryBoolean, queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/** Issue 28: the HTTP face of SchemaLifecycleService (as-of, restore, drafts, publish of v2 event types). */
export function schemaLifecycleHandlers(service: SchemaLifecycleService, deps: { trustProxy: boolean }) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  /** The type as the detail route presents it with `include_schema=true`. */
  const detail = (ctx: AppContext, item: EventType) => ({ ...presentEventType(item, origin(ctx)), schema: JSON.parse(item.schema) as unknown });
  /** `If-Match` (strong comparison) when sent; any representation of the current revision matches, as for PATCH. */
  const precondition = (ctx: AppContext): Precondition | undefined => {
    const header = ctx.get('If-Match');
    return header ? { matches: (etag) => ifMatchSatisfied(header, etag), variant: origin(ctx) } : undefined;
  };
  return {
    async asOf(ctx: AppContext) {
      const found = await service.asOf(requestContext(ctx), key(ctx), () => readAsOf(ctx));
      ctx.body = { ...detail(ctx, found.item), revision: found.revision, revision_time: toIso(found.revisionTime) };
    },

    async restore(ctx: AppContext) {
      const dryRun = queryBoolean(ctx, 'dry_run');
      const result = await service.restore(requestContext(ctx), key(ctx), readRevision(ctx.state.body), precondition(ctx), dryRun);
      ctx.body = 'would_change' in result ? { data: result } : detail(ctx, result);
    },

    async getDraft(ctx: AppContext) {
      const { item, draft } = await service.getDraft(requestContext(ctx), key(ctx));
      ctx.body = presentDraft(item, draft);
    },

    async putDraft(ctx: AppContext) {
      const { item, draft } = await service.putDraft(requestContext(ctx), key(ctx), ctx.state.body);
      ctx.body = presentDraft(item, draft);
    },

    async deleteDraft(ctx: AppContext) {
      await service.discardDraft(requestContext(ctx), key(ctx));
      ctx.status = 204;
    },

    async publish(ctx: AppContext) {
      const options = { allow: readAllowBreaking(ctx.state.body), rebase: queryBoolean(ctx, 'rebase') };
      try {
        ctx.body = detail(ctx, await service.publish(requestContext(ctx), key(ctx), options, precondition(ctx)));
      } catch (error) {
        if (!(error instanceof BreakingChangesError)) throw error;
        ctx.status = 409;
        const issue = { code: 'breaking_changes', message: error.message, hints: ['Change the draft, or allow each break with {"allow_breaking": [{"rule": …, "reason": …}]}.'] };
        ctx.body = { ...errorBody(409, error.message, { breaking_changes: [issue] }), findings: error.findings };
      }
    },
  };
}

const key = (ctx: AppContext) => String(ctx.params.key);

function presentDraft(item: EventType, draft: CatalogDraft) {
  return {
    data: {
      event_type: item.value,
      based_on_revision: draft.basedOnSequence,
      schema: JSON.parse(draft.schema) as unknown,
      updated_at: toIso(draft.updatedAt),
      updated_by: draft.updatedByUserId ? { id: draft.updatedByUserId, username: draft.updatedByUsername } : null,
    },
  };
}

/** Exactly one of `revision` (a positive integer) and `date` (ISO 8601 with an offset). */
function readAsOf(ctx: AppContext): AsOf {
  const revision = queryString(ctx, 'revision');
  const date = queryString(ctx, 'date');
  if ((revision === undefined) === (date === undefined)) {
    throw InputError.field('revision', 'invalid', 'Give exactly one of revision and date.', ['?revision=3, or ?date=2026-11-20T10:00:00+00:00']);
  }
  if (revision !== undefined) {
    const n = /^[0-9]{1,9}$/.test(revision) ? Number(revision) : 0;
    if (n < 1) throw InputError.field('revision', 'invalid', 'revision must be a positive integer (a history sequence).');
    return { revision: n };
  }
  const at = parseIsoWithOffset(date!);
  if (at === null) throw InputError.field('date', 'invalid', 'date must be ISO 8601 with an offset.', ['e.g. 2026-11-20T10:00:00+00:00']);
  return { date: at };
}

function readRevision(body: unknown): number {
  const revision = body && typeof body === 'object' && !Array.isArray(body) ? (body as { revision?: unknown }).revision : undefined;
  if (typeof revision !== 'number' || !Number.isInteger(revision) || revision < 1 || revision > 2147483647) {
    throw InputError.field('revision', revision === undefined ? 'required' : 'invalid', 'revision must be a positive integer (a history sequence).', ['Send {"revision": N}; see …/updates.']);
  }
  return revision;
}

/** `{"allow_breaking": [{rule, reason}]}` (optional; at most 20, reasons 1–500 characters). */
function readAllowBreaking(body: unknown): AllowedBreak[] {
  if (body === undefined || body === null) return [];
  if (typeof body !== 'object' || Array.isArray(body)) throw InputError.field('body', 'invalid_type', 'Expected a JSON object.');
  const list = (body as { allow_breaking?: unknown }).allow_breaking;
  if (list === undefined) return [];
  const valid = Array.isArray(list) && list.length <= 20 && list.every((entry) =>
    entry && typeof entry === 'object' && COMPAT_RULES.includes((entry as { rule: CompatRule }).rule)
    && typeof (entry as { reason: unknown }).reason === 'string' && (entry as { reason: string }).reason.trim() !== '' && (entry as { reason: string }).reason.length <= 500);
  if (!valid) throw InputError.field('allow_breaking', 'invalid', 'allow_breaking is a list of at most 20 {"rule": <rule id>, "reason": <1–500 characters>}.', [`Rules: ${COMPAT_RULES.join(', ')}.`]);
  return (list as Array<{ rule: CompatRule; reason: string }>).map(({ rule, reason }) => ({ rule, reason }));
}
