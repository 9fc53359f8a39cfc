import type { EventTypeV1Service } from '../../domain/event-types/v1.js';
import type { MeView, StartupService } from '../../domain/startup/service.js';
import { strongEtag } from '../../domain/catalog/etag.js';
import type { User } from '../../domain/model.js';
import { toIso } from '../../db/time.js';
import { answerConditionally } from '../conditional.js';
import { presentSubject } from '../presenters.js';
import { queryBoolean, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * The event object as the web app's generic event form reads it (`activity/events/schema`):
 * a JSON Schema whose `reported_by.enum_ext` lists who may be named as reporter (the caller).
 */
function eventSchema(reporter: User) {
  const account = { id: reporter.id, username: reporter.username, first_name: reporter.firstName, last_name: reporter.lastName, content_type: 'accounts.user' };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'Event',
    type: 'object',
    properties: {
      event_type: { type: 'string', title: 'Report type' },
      title: { type: ['string', 'null'], title: 'Title', maxLength: 255 },
      priority: { type: 'integer', title: 'Priority', enum: [0, 100, 200, 300] },
      state: { type: 'string', title: 'State', enum: ['new', 'active', 'resolved'] },
      time: { type: 'string', format: 'date-time', title: 'Reported at' },
      location: { type: ['object', 'null'], title: 'Location', properties: { latitude: { type: 'number' }, longitude: { type: 'number' } } },
      reported_by: { type: ['object', 'null'], title: 'Reported by', enum_ext: [{ value: account, title: [reporter.firstName, reporter.lastName].filter(Boolean).join(' ') || reporter.username }] },
      event_details: { type: 'object', title: 'Details' },
    },
    required: ['event_type'],
  };
}

function presentMe(view: MeView) {
  return {
    ...presentAccount(view.user),
    // The original's role is free text set by an administrator; there is none here.
    role: '',
    date_joined: toIso(view.user.createdAt),
    last_login: view.lastLogin === null ? null : toIso(view.lastLogin),
    is_staff: view.isSuperuser,
    is_superuser: view.isSuperuser,
    permissions: view.permissions,
    subject: view.subject,
  };
}

function presentAccount(user: User) {
  return {
    id: user.id,
    username: user.username,
    first_name: user.firstName,
    last_name: user.lastName,
    name: [user.firstName, user.lastName].filter(Boolean).join(' '),
    email: user.email,
    created_at: toIso(user.createdAt),
    is_active: user.isActive,
  };
}

/** The users API's own envelope (it has it in every profile). */
const ok = (data: unknown) => ({ status: { message: 'OK', code: 200 }, data });

/** What the original apps read to start (CONTRACT §11). Thin: one service call each. */
export function startupHandlers(deps: { startup: StartupService; v1: EventTypeV1Service; trustProxy: boolean; version: string }) {
  return {
    async me(ctx: AppContext) {
      const body = ok(presentMe(await deps.startup.me(requestContext(ctx))));
      // The body names the acting user already; the header is salted in for caches keyed by it.
      if (answerConditionally(ctx, { etag: strongEtag('user/me', JSON.stringify(body), ctx.get('User-Profile')) })) return;
      ctx.body = body;
    },
    async profiles(ctx: AppContext) {
      const users = await deps.startup.profiles(requestContext(ctx), String(ctx.params.id));
      ctx.body = ok(users.map((user) => ({ ...presentAccount(user), is_staff: user.isSuperuser, is_superuser: user.isSuperuser, permissions: {}, subject: null })));
    },
    status(ctx: AppContext) {
      const principal = ctx.state.principal;
      ctx.body = {
        version: deps.version,
        site_name: principal ? new URL(requestOrigin(ctx, deps.trustProxy)).hostname : 'fieldops',
        patrol_enabled: true,
        alerts_enabled: false,
        daily_report_enabled: false,
        eula_enabled: false,
        // subjects/kml and subjects/kml/root (issue 27 §2).
        export_kml_enabled: true,
        tableau_enabled: false,
        event_matrix_enabled: false,
        show_track_days: 16,
        services: [],
      };
    },
    async maps(ctx: AppContext) {
      ctx.body = (await deps.startup.maps(requestContext(ctx))).map((map) => ({ id: map.id, name: map.name, center: map.center, zoom: map.zoom, default: true, updated_at: toIso(map.updatedAt) }));
    },
    async subjectGroups(ctx: AppContext) {
      const groups = await deps.startup.subjectGroups(requestContext(ctx));
      ctx.body = groups.map((group) => ({ id: group.id, name: group.name, is_visible: true, subgroups: [], subjects: group.subjects.map(presentSubject) }));
    },
    async eventSchema(ctx: AppContext) {
      const body = eventSchema(deps.startup.reporter(requestContext(ctx)));
      if (answerConditionally(ctx, { etag: strongEtag('event-schema', JSON.stringify(body)) })) return;
      ctx.body = body;
    },
    async categories(ctx: AppContext) {
      const categories = await deps.startup.categories(requestContext(ctx));
      ctx.body = categories.filter((c) => c.isActive).map((c) => ({ id: c.id, value: c.value, display: c.display, ordernum: c.ordernum, is_active: c.isActive, flag: 'user', permissions: c.permissions }));
    },
    async v1EventTypes(ctx: AppContext) {
      const includeSchema = queryBoolean(ctx, 'include_schema');
      const origin = requestOrigin(ctx, deps.trustProxy);
      if (answerConditionally(ctx, { etag: await deps.startup.v1EventTypesTag(requestContext(ctx), `${origin} ${includeSchema}`) })) return;
      const view = await deps.startup.v1EventTypes(requestContext(ctx));
      const items = [];
      for (const [index, type] of view.types.entries()) {
        const category = view.categories.get(type.category);
        items.push({
          id: type.id,
          value: type.value,
          display: type.display,
          category: category
            ? { id: category.id, value: category.value, display: category.display, ordernum: category.ordernum, is_active: category.isActive, flag: 'user', permissions: category.permissions }
            : // A type stored without a (known) category is shown in a catch-all one.
              { id: null, value: type.category || 'other', display: type.category || 'Other', ordernum: null, is_active: true, flag: 'user', permissions: view.actions },
          ordernum: index,
          is_collection: false,
          icon_id: type.value,
          geometry_type: 'Point',
          default_priority: type.defaultPriority,
          default_state: 'new',
          is_active: type.isActive,
          version: '1',
          migrated_to: type.migratedTo,
          readonly: false,
          url: `${origin}/api/v1.0/activity/events/eventtypes/${encodeURIComponent(type.value)}`,
          ...(includeSchema ? { schema: await deps.v1.render(requestContext(ctx), type.value) } : {}),
        });
      }
      ctx.body = items;
    },
    /** A feature of the original that this service does not provide: empty, not 404. */
    empty(paged: boolean) {
      return (ctx: AppContext) => void (ctx.body = paged ? { count: 0, next: null, previous: null, results: [] } : []);
    },
  };
}
