import { CONTROL } from '../sensors/observation-input.js';
import { InputError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { SourceRecord } from './model.js';

/**
 * Which source a key names. A key is a source id or a manufacturer id; manufacturer ids are
 * unique per provider only, so one may name a source of each of several providers. A provider
 * (its key or id) narrows the choice; what stays ambiguous is refused, never guessed.
 */
export type SourceChoice =
  | { kind: 'found'; source: SourceRecord }
  | { kind: 'unknown' }
  | { kind: 'ambiguous'; providers: string[] };

/** `candidates`: what findSourceCandidates answered for the key; `provider`: a provider key or id, or null. */
export function chooseSource(candidates: readonly SourceRecord[] | undefined, provider: string | null): SourceChoice {
  const providerId = provider !== null && isUuid(provider) ? provider.toLowerCase() : null;
  const matching = (candidates ?? []).filter((source) => provider === null || source.providerKey === provider || source.providerId === providerId);
  if (matching.length === 1) return { kind: 'found', source: matching[0]! };
  if (matching.length === 0) return { kind: 'unknown' };
  return { kind: 'ambiguous', providers: matching.map((source) => source.providerKey).sort() };
}

/** The message of an ambiguous key, naming the providers that share it. */
export function ambiguityMessage(key: string, providers: readonly string[]): string {
  const named = providers.slice(0, 5).map((p) => `"${p.slice(0, 60)}"`).join(', ');
  return `"${key.slice(0, 60)}" is the manufacturer id of ${providers.length} sources (providers ${named}${providers.length > 5 ? ', …' : ''}).`;
}

/** The hint that resolves it: a body with a `provider` field, a path (`?provider=`), or a body that takes only the id. */
export const AMBIGUITY_HINTS = {
  body: ['Send the source id, or add "provider" with the provider key.'],
  path: ['Use the source id, or add ?provider=<provider key>.'],
  idOnly: ['Send the source id.'],
} as const;

/** Whether a value can name a provider: its key (1 to 100 printable characters) or id. */
export function isProviderName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 100 && !CONTROL.test(value);
}

/** A provider key or id as a request names it (the query parameter `provider`); absent or empty: null. */
export function readProviderName(value: unknown, field = 'provider'): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (!isProviderName(value)) throw InputError.field(field, 'invalid', `${field} is a provider key (1 to 100 printable characters) or id.`);
  return value;
}
