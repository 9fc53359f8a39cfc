import type { Assignment, ProviderRecord, SourceRecord } from '../../domain/subjects/model.js';
import type { SourceService } from '../../domain/subjects/sources.js';
import { toIso } from '../../db/time.js';
import { pageBody, readPage } from '../pagination.js';
import { queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { presentSubjectView } from './subjects.js';
import { envelope, enveloped, noContent, pathId as key } from './envelope.js';

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
  const shown = (found: SourceRecord, ctx: AppContext) => presentSource(found, origin(ctx));
  return {
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, items } = await sources.listSources(requestContext(ctx), page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map((source) => presentSource(source, origin(ctx))), trustProxy));
    },
    get: enveloped(200, (rc, ctx) => sources.getSource(rc, key(ctx), queryString(ctx, 'provider')), shown),
    create: enveloped(201, (rc, ctx) => sources.createSource(rc, ctx.state.body), shown),
    patch: enveloped(200, (rc, ctx) => sources.patchSource(rc, key(ctx), ctx.state.body, queryString(ctx, 'provider')), shown),
    remove: noContent((rc, ctx) => sources.deleteSource(rc, key(ctx), queryString(ctx, 'provider'))),
    subjects: enveloped(200, (rc, ctx) => sources.subjectsOfSource(rc, key(ctx), queryString(ctx, 'provider')), (views, ctx) => views.map((view) => presentSubjectView(view, origin(ctx)))),
    async ofSubject(ctx: AppContext) {
      const entries = await sources.sourcesOfSubject(requestContext(ctx), key(ctx));
      envelope(ctx, 200, entries.map(({ source, assignment }) => ({ ...presentSource(source, origin(ctx)), assigned_range: presentRange(assignment), subjectsource_id: assignment.id })));
    },
    assignmentsOfSubject: enveloped(200, (rc, ctx) => sources.assignmentsOfSubject(rc, key(ctx)), (items) => items.map(presentAssignment)),
    async providers(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, items } = await sources.listProviders(requestContext(ctx), page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map(presentProvider), trustProxy));
    },
    createProvider: enveloped(201, (rc, ctx) => sources.createProvider(rc, ctx.state.body), presentProvider),
    patchProvider: enveloped(200, (rc, ctx) => sources.patchProvider(rc, key(ctx), ctx.state.body), presentProvider),
    async assignments(ctx: AppContext) {
      const page = readPage(ctx);
      const filter = { subjects: queryString(ctx, 'subjects'), sources: queryString(ctx, 'sources') };
      const { total, items } = await sources.listAssignments(requestContext(ctx), filter, page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map(presentAssignment), trustProxy));
    },
    createAssignment: enveloped(201, (rc, ctx) => sources.createAssignment(rc, ctx.state.body), presentAssignment),
    patchAssignment: enveloped(200, (rc, ctx) => sources.patchAssignment(rc, key(ctx), ctx.state.body), presentAssignment),
    removeAssignment: noContent((rc, ctx) => sources.deleteAssignment(rc, key(ctx))),
  };
}
