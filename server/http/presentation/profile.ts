import type { ApiProfile } from '../../domain/model.js';
import type { Principal } from '../../domain/context.js';

/**
 * The response profile of a request (CONTRACT §11): a token answers in the profile of the
 * client it was issued to, an application principal in its own, anyone else (no or bad
 * credentials, public routes) in the server's default (FIELDOPS_API_PROFILE).
 */
export function profileOf(principal: Principal | null, fallback: ApiProfile): ApiProfile {
  return principal?.client.profile ?? fallback;
}
