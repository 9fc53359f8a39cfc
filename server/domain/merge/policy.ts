/** The tenant's conflict policy (issue 26 §3): what a same-field conflict does. */
import { CONFLICT_POLICIES, type ConflictPolicy } from '../../../protocol/push.js';
import { InputError } from '../errors.js';

export { CONFLICT_POLICIES, type ConflictPolicy };

/** The policy as the admin command spells it (`server-wins`) or as stored (`server_wins`). */
export function parseConflictPolicy(text: string): ConflictPolicy {
  const policy = text.trim().toLowerCase().replace(/-/g, '_');
  if ((CONFLICT_POLICIES as readonly string[]).includes(policy)) return policy as ConflictPolicy;
  throw InputError.field('policy', 'invalid', `Unknown conflict policy "${text}".`, ['Use hold, server-wins or last-writer-wins.']);
}

/** `server_wins` → `server-wins` (the command line's spelling). */
export const policyName = (policy: ConflictPolicy): string => policy.replace(/_/g, '-');
