/**
 * Content codings (RFC 9110 §8.4, §12.5.3) as the server applies them to responses
 * (middleware/compress.ts), and what they do to entity tags.
 *
 * A content coding changes the representation, so a strong ETag of a compressed body names
 * the coding: `"<tag>-gzip"`, `"<tag>-br"` (RFC 9110 §8.8.3). Every precondition the server
 * evaluates (If-None-Match, If-Match; conditional.ts) strips that suffix before comparing, so a
 * client that received a compressed representation still revalidates (304) and still writes
 * with If-Match. Weak tags are left as they are: a weak tag already names every coding.
 */

export type ContentCoding = 'br' | 'gzip';

const CODED_TAG = /^(W\/)?"(.*)-(?:gzip|br)"$/;

/** The strong tag of `coding` applied to the representation `etag` names; weak tags unchanged. */
export function codedEtag(etag: string, coding: ContentCoding): string {
  if (etag.startsWith('W/') || !etag.endsWith('"')) return etag;
  return `${etag.slice(0, -1)}-${coding}"`;
}

/** `"<tag>-gzip"` / `"<tag>-br"` (weak or strong) → the tag without its coding. */
export function withoutCoding(tag: string): string {
  const match = CODED_TAG.exec(tag);
  return match ? `${match[1] ?? ''}"${match[2]}"` : tag;
}

/**
 * The ETag a 304 repeats: the coded variant of `etag` the client named in If-None-Match, when
 * it named one (it holds that representation), else `etag` itself.
 */
export function etagForNotModified(ifNoneMatch: string, etag: string): string {
  if (!ifNoneMatch || etag.startsWith('W/')) return etag;
  for (const coding of ['br', 'gzip'] as const) {
    if (ifNoneMatch.includes(codedEtag(etag, coding))) return codedEtag(etag, coding);
  }
  return etag;
}

/** Longest Accept-Encoding header read; anything longer is treated as asking for identity. */
const MAX_ACCEPT_ENCODING = 1024;

/**
 * The coding to send for an Accept-Encoding header, or null for identity: br or gzip, the one
 * with the higher q-value (br on a tie), `*` standing for either when not named, `q=0`
 * refusing. No header (or an unreadable one): identity, as old clients expect.
 */
export function negotiateCoding(header: string | undefined): ContentCoding | null {
  if (!header || header.length > MAX_ACCEPT_ENCODING) return null;
  const q: Record<string, number> = {};
  for (const item of header.split(',')) {
    const [rawName, ...params] = item.split(';');
    const name = rawName!.trim().toLowerCase();
    if (!name) continue;
    let weight = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((s) => s.trim());
      if (key?.toLowerCase() !== 'q') continue;
      const parsed = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value ?? '') ? Number(value) : Number.NaN;
      weight = Number.isNaN(parsed) ? 0 : parsed;
    }
    const key = name === 'x-gzip' ? 'gzip' : name;
    q[key] = Math.max(q[key] ?? 0, weight);
  }
  const weightOf = (coding: ContentCoding) => q[coding] ?? q['*'] ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}
