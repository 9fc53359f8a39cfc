/**
 * Client-generated ids. A record typed in gets a random UUID; an imported row gets a UUID
 * derived (SHA-256, formatted as a version-5-style UUID) from the file's content hash, the row
 * and every import option that changes what is stored for it (the event type; an observation's
 * subject, source and provider), so the same datasheet imported twice yields the same ids and
 * queues nothing new, while an import with a corrected option is new records.
 */
import { createHash, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

export function contentDigest(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A stable UUID for `parts` (e.g. the file digest, the kind of record, the row number). */
export function derivedId(...parts: Array<string | number>): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
