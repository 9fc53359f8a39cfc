import { hash } from 'node:crypto';

/**
 * A strong ETag from the parts that determine a response body: the tenant, what the catalog
 * or row version is, and the normalised query. Nothing about the caller goes in unless the
 * body depends on the caller (the tracked-by schema).
 */
export function strongEtag(...parts: Array<string | number | boolean | null>): string {
  let input = '';
  for (const part of parts) input += `${part}\u0000`;
  let etag = recent.get(input);
  if (etag === undefined) {
    etag = `"${hash('sha256', input, 'base64url').slice(0, 32)}"`;
    if (recent.size >= RECENT_MAX) recent.clear();
    recent.set(input, etag);
  }
  return etag;
}

// The same few tags are asked for over and over by revalidating clients: remember them.
const RECENT_MAX = 4096;
const recent = new Map<string, string>();

export interface Validators {
  etag: string;
  /** Epoch ms; absent where only an ETag is offered. */
  lastModified?: number;
}
