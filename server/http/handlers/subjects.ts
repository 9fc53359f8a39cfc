import type { SubjectWithStatus } from '../../domain/ports.js';
import type { SubjectRecord, SubjectView } from '../../domain/subjects/model.js';
import type { SubjectService } from '../../domain/subjects/service.js';
import { toIso } from '../../db/time.js';
import { subjectIconPath } from '../../domain/subjects/icons.js';
import { pageBody, readPage } from '../pagination.js';
import { presentSubject } from '../presenters.js';
import { queryBoolean, queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { envelope, enveloped, noContent, pathId } from './envelope.js';

/** The subject side's answers use the users API's envelope in every profile (CONTRACT §10). */
export { envelope };

/**
 * A subject as the original serves it (the map, the lists, er-client). `origin` makes `url` and
 * the map image absolute (the original's); without it (the sync feed) they are relative.
 * `subject_groups` (group names) and `revision` are ours; the earthranger profile drops `revision`.
 */
export function presentSubjectView(view: SubjectView | SubjectWithStatus, origin = '') {
  const { subject, status, groups } = view;
  const device = 'device' in view ? (view.device ?? null) : null;
  const profile = subject as Partial<SubjectRecord>;
  const image = subjectIconPath(subject);
  const radio = status?.radioState ?? null;
  const time = status ? toIso(status.recordedAt) : null;
  const base = presentSubject(subject);
  return {
    content_type: base.content_type,
    id: base.id,
    name: base.name,
    subject_type: base.subject_type,
    subject_subtype: base.subject_subtype,
    common_name: profile.commonName ?? null,
    additional: base.additional,
    created_at: base.created_at,
    updated_at: base.updated_at,
    is_active: base.is_active,
    region: profile.region ?? null,
    country: profile.country ?? null,
    sex: profile.sex ?? null,
    hex: profile.hex ?? null,
    tracks_available: status !== null,
    image_url: image,
    subject_groups: groups,
    last_position_status: radio,
    last_position_date: time,
    last_position: status
      ? {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [status.longitude, status.latitude] },
          properties: {
            title: subject.name, subject_type: subject.subjectType, subject_subtype: subject.subjectSubtype, id: subject.id,
            stroke: profile.hex ?? '', 'stroke-opacity': 1, 'stroke-width': 2, image: origin + image,
            last_voice_call_start_at: (radio?.last_voice_call_start_at as string | undefined) ?? null, location_requested_at: (radio?.location_requested_at as string | undefined) ?? null,
            radio_state_at: (radio?.radio_state_at as string | undefined) ?? null, radio_state: typeof radio?.radio_state === 'string' ? radio.radio_state : 'na',
            coordinateProperties: { time }, DateTime: time, time, source: status.sourceId,
          },
        }
      : null,
    device_status_properties: null,
    // The web app lists a subject's messages, and sends to it, through `messaging[0].url`.
    messaging: device ? [{ source_provider: device.provider, url: `${origin}/api/v1.0/messages/?subject_id=${subject.id}&source_id=${device.sourceId}` }] : [],
    url: `${origin}/api/v1.0/subject/${subject.id}`,
    revision: base.revision,
  };
}

/** The most subjects a plain (unpaged) list holds; a larger tenant pages (`page_size`). */
export const UNPAGED_LIMIT = 10_000;

export function subjectHandlers(subjects: SubjectService, trustProxy: boolean) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, trustProxy);
  const present = (view: SubjectView, ctx: AppContext) => presentSubjectView(view, origin(ctx));
  const groupId = (ctx: AppContext) => String(ctx.params.group_id);
  return {
    /** A plain list, or a page when `page` or `page_size` is given (the original's). */
    async list(ctx: AppContext) {
      const paged = queryString(ctx, 'page') !== undefined || queryString(ctx, 'page_size') !== undefined;
      const page = readPage(ctx);
      const query = {
        include_inactive: queryBoolean(ctx, 'include_inactive'),
        updated_since: queryString(ctx, 'updated_since'),
        bbox: queryString(ctx, 'bbox'),
        subject_group: queryString(ctx, 'subject_group'),
        name: queryString(ctx, 'name'),
      };
      // Unpaged: the whole list, as the original (bounded: UNPAGED_LIMIT).
      const window = paged ? page : { offset: 0, limit: UNPAGED_LIMIT };
      const { total, items } = await subjects.list(requestContext(ctx), query, window, paged);
      const shown = items.map((view) => presentSubjectView(view, origin(ctx)));
      envelope(ctx, 200, paged ? pageBody(ctx, page, total ?? 0, shown, trustProxy) : shown);
    },
    get: enveloped(200, (rc, ctx) => subjects.get(rc, pathId(ctx)), present),
    create: enveloped(201, (rc, ctx) => subjects.createSubject(rc, ctx.state.body), present),
    patch: enveloped(200, (rc, ctx) => subjects.patchSubject(rc, pathId(ctx), ctx.state.body), present),
    remove: noContent((rc, ctx) => subjects.deleteSubject(rc, pathId(ctx))),
    addMembers: enveloped(200, (rc, ctx) => subjects.addGroupMembers(rc, groupId(ctx), ctx.state.body), (group, ctx) => ({ id: group.id, name: group.name, subjects: group.subjects.map((view) => present(view, ctx)) })),
    removeMembers: noContent((rc, ctx) => subjects.removeGroupMembers(rc, groupId(ctx), ctx.state.body)),
  };
}
