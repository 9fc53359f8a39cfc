/**
 * Small rules for what clients send that several areas share.
 */

/** An `If-Match` precondition: does the header name this tag? Undefined when none was sent. */
export type IfMatch = ((etag: string) => boolean) | undefined;

/**
 * What an update or delete was based on (issue 26 §2): an `If-Match` tag, and/or the record's
 * revision the client last saw (`Fieldops-Base-Revision`, or a batch entry's `base`). With a
 * base the server merges field by field (domain/merge); `chainLost` are the fields the entry
 * this one follows lost to conflicts (their base is that entry's value, not the server's).
 * Neither given: a blind update, as the original's clients send.
 */
export interface WritePrecondition {
  ifMatch?: IfMatch;
  base?: { revision: number; chainLost?: Record<string, unknown> };
}

/** An uploaded file's name, reduced to something safe to show and to put in Content-Disposition. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 255);
  return clean || 'file';
}
