import type { Assignment, ProviderRecord, SourceRecord } from '../../domain/subjects/model.js';
import type { SourceService } from '../../domain/subjects/sources.js';
import { toIso } from '../../db/time.js';
import { pageBody, readPage } from '../pagination.js';
import { queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { envelope, presentSubjectView } from './subjects.js';

/** A source as the original shows it: `provider` is the provider's key. */
export function presentSource(source: SourceRecord, origin: string) {
  return {
    id: source.id,
    source_type: source.sourceType,
    manufacturer_id: source.manufacturerId,
    model_name: source.modelName,
    additional: source.additional,
    provider: source.providerKey,
    content_type: 'observations.source',
    created_at: toIso(source.createdAt),
    updated_at: toIso(source.updatedAt),
    url: `${origin}/api/v1.0/source/${source.id}`,
  };
}

/** `[lower, upper)`; upper null: open ended. */
const presentRange = (a: Assignment) => ({ lower: toIso(a.rangeLower), upper: a.rangeUpper === null ? null : toIso(a.rangeUpper), bounds: '[)' });

export function presentAssignment(a: Assignment) {
  return { id: a.id, subject: a.subjectId, source: a.sourceId, assigned_range: presentRange(a), additional: a.additional, created_at: toIso(a.createdAt), updated_at: toIso(a.updatedAt) };
}

export function presentProvider(p: ProviderRecord) {
  return { id: p.id, provider_key: p.key, display_name: p.displayName, additional: p.additional, created_at: toIso(p.createdAt), updated_at: toIso(p.updatedAt) };
}

export function sourceHandlers(sources: SourceService, trustProxy: boolean) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, trustProxy);
  const key = (ctx: AppContext) => String(ctx.params.id);
  return {
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, items } = await sources.listSources(requestContext(ctx), page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map((source) => presentSource(source, origin(ctx))), trustProxy));
    },
    async get(ctx: AppContext) {
      envelope(ctx, 200, presentSource(await sources.getSource(requestContext(ctx), key(ctx)), origin(ctx)));
    },
    async create(ctx: AppContext) {
      envelope(ctx, 201, presentSource(await sources.createSource(requestContext(ctx), ctx.state.body), origin(ctx)));
    },
    async patch(ctx: AppContext) {
      envelope(ctx, 200, presentSource(await sources.patchSource(requestContext(ctx), key(ctx), ctx.state.body), origin(ctx)));
    },
    async remove(ctx: AppContext) {
      await sources.deleteSource(requestContext(ctx), key(ctx));
      ctx.status = 204;
    },
    async subjects(ctx: AppContext) {
      const views = await sources.subjectsOfSource(requestContext(ctx), key(ctx));
      envelope(ctx, 200, views.map((view) => presentSubjectView(view, origin(ctx))));
    },
    async ofSubject(ctx: AppContext) {
      const entries = await sources.sourcesOfSubject(requestContext(ctx), key(ctx));
      envelope(ctx, 200, entries.map(({ source, assignment }) => ({ ...presentSource(source, origin(ctx)), assigned_range: presentRange(assignment), subjectsource_id: assignment.id })));
    },
    async assignmentsOfSubject(ctx: AppContext) {
      envelope(ctx, 200, (await sources.assignmentsOfSubject(requestContext(ctx), key(ctx))).map(presentAssignment));
    },
    async providers(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, items } = await sources.listProviders(requestContext(ctx), page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map(presentProvider), trustProxy));
    },
    async createProvider(ctx: AppContext) {
      envelope(ctx, 201, presentProvider(await sources.createProvider(requestContext(ctx), ctx.state.body)));
    },
    async patchProvider(ctx: AppContext) {
      envelope(ctx, 200, presentProvider(await sources.patchProvider(requestContext(ctx), key(ctx), ctx.state.body)));
    },
    async assignments(ctx: AppContext) {
      const page = readPage(ctx);
      const filter = { subjects: queryString(ctx, 'subjects'), sources: queryString(ctx, 'sources') };
      const { total, items } = await sources.listAssignments(requestContext(ctx), filter, page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map(presentAssignment), trustProxy));
    },
    async createAssignment(ctx: AppContext) {
      envelope(ctx, 201, presentAssignment(await sources.createAssignment(requestContext(ctx), ctx.state.body)));
    },
    async patchAssignment(ctx: AppContext) {
      envelope(ctx, 200, presentAssignment(await sources.patchAssignment(requestContext(ctx), key(ctx), ctx.state.body)));
    },
    async removeAssignment(ctx: AppContext) {
      await sources.deleteAssignment(requestContext(ctx), key(ctx));
      ctx.status = 204;
    },
  };
}
