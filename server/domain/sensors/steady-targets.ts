import type { SensorProvider, SensorSource, Subject } from '../model.js';
import type { SteadyIntakeRead } from '../ports.js';

/** At most this many providers are remembered, and this many sources and names in all. */
const MAX_PROVIDERS = 64;
const MAX_ITEMS = 20_000;

interface Entry {
  provider: SensorProvider;
  subjectsVersion: number;
  sources: Map<string, SensorSource>;
  /** Every name asked for at this version, with its subjects oldest first (none: known to have none). */
  named: Map<string, Subject[]>;
}

/**
 * What steady batches were decided on, per tenant and provider key, kept by one process so that
 * a steady stream need not read it again for every batch. Never trusted on its own: every
 * insert decided on it carries its stamp (SteadyIntakeStamp), which the database checks in the
 * same statement, so a subject or source changed by any process (or machine) fails the insert
 * and sends the batch back to a fresh read. Bounded: least recently used providers go first.
 */
export class SteadyTargets {
  private readonly entries = new Map<string, Entry>();
  private items = 0;

  /** The remembered read, if it covers every manufacturer id and every name. */
  find(tenantId: string, providerKey: string, manufacturerIds: readonly string[], names: readonly string[]): SteadyIntakeRead | null {
    const key = keyOf(tenantId, providerKey);
    const entry = this.entries.get(key);
    if (!entry) return null;
    const sources = new Map<string, SensorSource>();
    for (const id of manufacturerIds) {
      const source = entry.sources.get(id);
      if (!source) return null;
      sources.set(id, source);
    }
    const named: Subject[] = [];
    for (const name of names) {
      const subjects = entry.named.get(name);
      if (!subjects) return null;
      named.push(...subjects);
    }
    named.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { provider: entry.provider, sources, named, subjectsVersion: entry.subjectsVersion };
  }

  /**
   * Remembers a fresh read of `names`, joined to what is remembered when read at the same
   * version (and within bounds); other providers, least recently used first, make room.
   */
  remember(tenantId: string, providerKey: string, read: SteadyIntakeRead, names: readonly string[]): void {
    const key = keyOf(tenantId, providerKey);
    const current = this.entries.get(key);
    const joinable = current && current.provider.id === read.provider.id && current.subjectsVersion === read.subjectsVersion &&
      current.sources.size + current.named.size + read.sources.size + names.length <= MAX_ITEMS;
    this.drop(key);
    const entry: Entry = joinable ? current : { provider: read.provider, subjectsVersion: read.subjectsVersion, sources: new Map(), named: new Map() };
    for (const [id, source] of read.sources) entry.sources.set(id, source);
    for (const name of names) entry.named.set(name, []);
    for (const subject of read.named) entry.named.get(subject.name)?.push(subject);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < MAX_PROVIDERS && this.items + entry.sources.size + entry.named.size <= MAX_ITEMS) break;
      this.drop(oldest);
    }
    this.entries.set(key, entry);
    this.items += entry.sources.size + entry.named.size;
  }

  /** How many sources and names are remembered, over every provider. */
  get remembered(): number {
    return this.items;
  }

  forget(tenantId: string, providerKey: string): void {
    this.drop(keyOf(tenantId, providerKey));
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.items -= entry.sources.size + entry.named.size;
    this.entries.delete(key);
  }

  /** How many providers are remembered (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}

const keyOf = (tenantId: string, providerKey: string) => `${tenantId}\u0000${providerKey}`;
