import type { ApiProfile } from '../../domain/model.js';
import type { Middleware } from '../state.js';
import { profileOf } from './profile.js';

/**
 * Read-only fields the original clients send back with what they were served (CONTRACT §11),
 * by route: in the `earthranger` profile they are removed from the JSON body before it is
 * validated (accepted and ignored); any other unknown field is still a 400. `segments` names
 * the keys removed from each item of `patrol_segments`.
 */
const ECHOED: Record<string, { top: string[]; segments?: string[] }> = {
  'patrols.create': { top: ['id', 'serial_number', 'updated_at', 'created_at', 'updates'], segments: ['updated_at', 'patrol', 'image_url', 'icon_id'] },
  'patrols.patch': { top: ['serial_number', 'updated_at', 'created_at', 'updates'], segments: ['updated_at', 'patrol', 'image_url', 'icon_id'] },
  'patrols.replace': { top: ['serial_number', 'updated_at', 'created_at', 'updates'], segments: ['updated_at', 'patrol', 'image_url', 'icon_id'] },
  'segments.create': { top: ['id', 'updated_at', 'patrol', 'image_url', 'icon_id'] },
  'segments.patch': { top: ['updated_at', 'patrol', 'image_url', 'icon_id'] },
  'segments.replace': { top: ['updated_at', 'patrol', 'image_url', 'icon_id'] },
  'events.create': { top: ['id', 'serial_number', 'updated_at', 'created_at', 'icon_id', 'is_collection', 'reported_by', 'url', 'updates'] },
  'events.patch': { top: ['serial_number', 'updated_at', 'created_at', 'icon_id', 'is_collection', 'reported_by', 'url', 'updates'] },
};

/** Route names with echoed fields (tests check each names a route of the table). */
export const ECHOED_ROUTES = Object.keys(ECHOED);

export function acceptEchoedFields(routeName: string, defaultProfile: ApiProfile): Middleware | null {
  const spec = ECHOED[routeName];
  if (!spec) return null;
  return (ctx, next) => {
    const body = ctx.state.body;
    if (profileOf(ctx.state.principal ?? null, defaultProfile) === 'earthranger' && isObject(body)) {
      const copy: Record<string, unknown> = { ...body };
      for (const key of spec.top) delete copy[key];
      if (spec.segments && Array.isArray(copy.patrol_segments)) {
        copy.patrol_segments = copy.patrol_segments.map((segment) => {
          if (!isObject(segment)) return segment;
          const stripped: Record<string, unknown> = { ...segment };
          for (const key of spec.segments!) delete stripped[key];
          return stripped;
        });
      }
      ctx.state.body = copy;
    }
    return next();
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
