/**
 * Serialised response bodies keyed by their strong ETag. A strong ETag names exactly one body
 * (it is derived from the database's catalog version and the normalised request), so a body
 * cached under it stays correct for as long as anyone asks with that ETag, in any process:
 * when the catalog changes, the ETag changes and the old entry is simply never asked for again.
 * Bounded by entry count and total bytes; least recently used first out.
 */
export class BodyCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 64,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get(etag: string): Buffer | undefined {
    const body = this.entries.get(etag);
    if (body) {
      this.entries.delete(etag);
      this.entries.set(etag, body);
    }
    return body;
  }

  set(etag: string, body: Buffer): void {
    if (body.length > this.maxBytes / 4 || this.entries.has(etag)) return;
    this.entries.set(etag, body);
    this.bytes += body.length;
    for (const [key, value] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= value.length;
    }
  }
}
