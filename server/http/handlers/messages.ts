import type { MessageService } from '../../domain/messages/service.js';
import type { MessageView } from '../../domain/messages/ports.js';
import { toIso } from '../../db/time.js';
import { pageBody, readPage } from '../pagination.js';
import { queryBoolean, queryString } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/** A message as the original's clients read it (in both profiles: messages are the original's area). */
export function presentMessage(view: MessageView, withAdditional = true): Record<string, unknown> {
  const subject = view.subject
    ? { content_type: 'observations.subject', id: view.subject.id, name: view.subject.name, subject_type: view.subject.subjectType, subject_subtype: view.subject.subjectSubtype }
    : null;
  const user = view.user
    ? { content_type: 'accounts.user', id: view.user.id, username: view.user.username, first_name: view.user.firstName, last_name: view.user.lastName, name: [view.user.firstName, view.user.lastName].filter(Boolean).join(' ') || view.user.username }
    : null;
  return {
    id: view.id,
    sender: view.messageType === 'inbox' ? subject : user,
    receiver: view.messageType === 'inbox' ? user : subject,
    device: view.sourceId,
    message_type: view.messageType,
    text: view.text,
    status: view.status,
    device_location: view.latitude === null || view.longitude === null ? null : { latitude: view.latitude, longitude: view.longitude },
    message_time: toIso(view.messageTime),
    read: view.read,
    ...(withAdditional ? { additional: view.additional } : {}),
  };
}

const param = (ctx: AppContext) => String((ctx.params as Record<string, string>).id ?? '');
const optional = (ctx: AppContext, name: string) => queryString(ctx, name) || undefined;

/** `messages` (issue 27 §5). Thin: one service call each. */
export function messageHandlers(deps: { messages: MessageService; trustProxy: boolean }) {
  return {
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const read = queryString(ctx, 'read') ? queryBoolean(ctx, 'read') : undefined;
      const messageType = optional(ctx, 'message_type') as 'inbox' | 'outbox' | undefined;
      const { total, items } = await deps.messages.list(requestContext(ctx), { subjectIds: optional(ctx, 'subject_id')?.split(',').map((id) => id.trim()).filter(Boolean), sourceId: optional(ctx, 'source_id'), read, messageType }, page.offset, page.limit);
      const withAdditional = queryBoolean(ctx, 'include_additional_data', true);
      ctx.body = pageBody(ctx, page, total, items.map((item) => presentMessage(item, withAdditional)), deps.trustProxy);
    },
    async get(ctx: AppContext) {
      ctx.body = presentMessage(await deps.messages.get(requestContext(ctx), param(ctx)));
    },
    async create(ctx: AppContext) {
      const body = (ctx.state.body ?? {}) as Record<string, unknown>;
      if (body.bulk_read === true) {
        const read = body.read !== false;
        ctx.body = { ids: await deps.messages.setRead(requestContext(ctx), (body.ids as string[] | undefined) ?? [], read), read };
        return;
      }
      const target = { subjectId: optional(ctx, 'subject_id'), sourceId: optional(ctx, 'source_id'), manufacturerId: optional(ctx, 'manufacturer_id'), providerKey: optional(ctx, 'provider_key') };
      ctx.status = 201;
      ctx.body = presentMessage(await deps.messages.send(requestContext(ctx), target, body));
    },
    async patch(ctx: AppContext) {
      const body = (ctx.state.body ?? {}) as { read?: unknown };
      ctx.body = presentMessage(await deps.messages.setOneRead(requestContext(ctx), param(ctx), body.read));
    },
    async remove(ctx: AppContext) {
      await deps.messages.remove(requestContext(ctx), param(ctx));
      ctx.status = 204;
    },
  };
}
