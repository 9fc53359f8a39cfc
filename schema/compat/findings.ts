/**
 * Building findings: the severity comes from the allowed breaks (`--allow-breaking <rule>
 * --reason`): an allowed rule's findings stay listed, as warnings carrying the reason.
 */
import type { AllowedBreak, CompatFinding, CompatRule } from './types.js';

export type FindingDraft = Omit<CompatFinding, 'severity' | 'allowed'>;

export function finalise(drafts: readonly FindingDraft[], allow: readonly AllowedBreak[] | undefined): CompatFinding[] {
  const reasons = new Map<CompatRule, string>();
  for (const a of allow ?? []) if (!reasons.has(a.rule)) reasons.set(a.rule, a.reason);
  return drafts.map((d) => {
    const reason = reasons.get(d.rule);
    return reason === undefined ? { ...d, severity: 'error' } : { ...d, severity: 'warning', allowed: { reason } };
  });
}

/** `3 events` / `at least 3 events`. */
export function eventsText(n: number, atLeast = false): string {
  return `${atLeast ? 'at least ' : ''}${n} stored event${n === 1 ? '' : 's'}`;
}

/** Up to `max` values for a message, then how many more. */
export function sample(values: readonly unknown[], max = 3): string {
  const shown = values.slice(0, max).map((v) => JSON.stringify(v)).join(', ');
  return values.length > max ? `${shown} and ${values.length - max} more` : shown;
}
