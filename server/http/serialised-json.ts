/**
 * JSON bodies whose handler has serialised them already (the sync feed measures each change's
 * JSON to cut a page at PAGE_BYTES): the compression step sends those bytes instead of
 * running JSON.stringify over the page a second time (a ~1 MB page costs a few ms each time).
 * The object stays `ctx.body`, so every step between sees, and the response check validates,
 * the same value as before.
 *
 * Contract: `text` is exactly JSON.stringify(body), and the body is not changed afterwards. A
 * step that replaces `ctx.body` with another value drops the association (keyed by identity).
 */
const serialised = new WeakMap<object, Buffer>();

export function withSerialisedJson<T extends object>(body: T, text: string): T {
  serialised.set(body, Buffer.from(text, 'utf8'));
  return body;
}

/** The bytes a handler serialised for this very body object, if any. */
export function serialisedJson(body: unknown): Buffer | undefined {
  return body !== null && typeof body === 'object' ? serialised.get(body) : undefined;
}
