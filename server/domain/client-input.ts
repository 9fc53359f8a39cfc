/**
 * Small rules for what clients send that several areas share.
 */

/** An `If-Match` precondition: does the header name this tag? Undefined when none was sent. */
export type IfMatch = ((etag: string) => boolean) | undefined;

/** An uploaded file's name, reduced to something safe to show and to put in Content-Disposition. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 255);
  return clean || 'file';
}
