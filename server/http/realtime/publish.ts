import type { Middleware } from '../state.js';
import type { RealtimeHub, RealtimeKind } from './hub.js';
import { withoutOrigin } from './urls.js';

/** Successful writes whose body is the changed object, by route name. */
const PUBLISHED: Record<string, [RealtimeKind, 'created' | 'updated']> = {
  'events.create': ['event', 'created'],
  'events.patch': ['event', 'updated'],
  'patrols.create': ['patrol', 'created'],
  'patrols.replace': ['patrol', 'updated'],
  'patrols.patch': ['patrol', 'updated'],
  // A bulk read (also `messages.create`) answers `{ids, read}`: no `id`, so nothing is published.
  'messages.create': ['message', 'created'],
  'messages.patch': ['message', 'updated'],
};

/**
 * After a successful write of an event or a patrol, pushes the object (as the handler wrote
 * it, before the profile step) to the realtime sessions allowed to see it. Handlers and
 * services know nothing of it. Its absolute URLs were built on the writer's `Host`: they are
 * published as paths, and each session gets them on its own origin (issue 24).
 */
export function publishChanges(hub: RealtimeHub): Middleware {
  return async (ctx, next) => {
    await next();
    const spec = ctx.state.routeName ? PUBLISHED[ctx.state.routeName] : undefined;
    const principal = ctx.state.principal;
    if (!spec || !principal || ctx.status >= 300 || !hub.listening) return;
    const body = ctx.body as Record<string, unknown> | null;
    if (body && typeof body === 'object' && !Buffer.isBuffer(body) && typeof body.id === 'string') hub.publish(principal.tenantId, spec[0], spec[1], withoutOrigin(spec[0], body));
  };
}
