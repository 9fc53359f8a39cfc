import { createHash } from 'node:crypto';

/**
 * A strong ETag from the parts that determine a response body: the tenant, what the catalog
 * or row version is, and the normalised query. Nothing about the caller goes in unless the
 * body depends on the caller (the tracked-by schema).
 */
export function strongEtag(...parts: Array<string | number | boolean | null>): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(String(part)).update('\u0000');
  return `"${hash.digest('base64url').slice(0, 32)}"`;
}

export interface Validators {
  etag: string;
  /** Epoch ms; absent where only an ETag is offered. */
  lastModified?: number;
}
