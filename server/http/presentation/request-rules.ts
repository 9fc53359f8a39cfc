import type { ApiProfile } from '../../domain/model.js';
import type { FieldErrors } from '../../domain/errors.js';
import type { AppContext } from '../state.js';
import { profileOf } from './profile.js';

/**
 * The request side of the profile step (CONTRACT §11): what the fieldops profile refuses in a
 * body the route's schema accepts for both profiles. The earthranger profile accepts what the
 * original accepts (its clients send served records back); the fieldops profile holds clients to
 * the specification. Checked with the route's schema (middleware/validate.ts), so its issues are
 * listed with the schema's and answered as they are.
 */
type BodyRule = (body: Record<string, unknown>) => FieldErrors | null;

/** Specification, patrols: "Nested segments go in `patrol_segments` and must not carry `patrol`." */
const nestedSegmentsCarryNoPatrol: BodyRule = (body) => {
  const segments = body.patrol_segments;
  if (!Array.isArray(segments)) return null;
  const fields: FieldErrors = {};
  segments.forEach((segment, index) => {
    if (segment !== null && typeof segment === 'object' && Object.hasOwn(segment, 'patrol')) {
      fields[`patrol_segments[${index}].patrol`] = [{ code: 'not_allowed', message: 'A nested segment must not carry patrol.', hints: ['Leave patrol out: a nested segment belongs to the patrol being written.'] }];
    }
  });
  return Object.keys(fields).length > 0 ? fields : null;
};

const FIELDOPS_RULES: Record<string, BodyRule> = {
  'patrols.create': nestedSegmentsCarryNoPatrol,
  'patrols.replace': nestedSegmentsCarryNoPatrol,
  'patrols.patch': nestedSegmentsCarryNoPatrol,
};

/** The route's fieldops body rule, applied only to callers in the fieldops profile (undefined: none). */
export function fieldopsRequestRule(routeName: string, defaultProfile: ApiProfile): ((ctx: AppContext, body: object) => FieldErrors | null) | undefined {
  const rule = FIELDOPS_RULES[routeName];
  if (!rule) return undefined;
  return (ctx, body) => (!Array.isArray(body) && profileOf(ctx.state.principal ?? null, defaultProfile) === 'fieldops' ? rule(body as Record<string, unknown>) : null);
}
