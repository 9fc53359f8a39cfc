/**
 * An in-memory feed server for the CLI's unit tests, speaking protocol/sync.ts over a Transport:
 * records with scopes and versions, a log, snapshots for `cursor: null`, checkpoints at the end
 * of a catch-up, ranges and records for repair, and switches for 404, 410 and settling.
 */
import { addTerm, recordTerm } from '../../../protocol/checksum.js';
import type { Change, FeedPage, RecordKind } from '../../../protocol/sync.js';
import type { Transport, TransportRequest } from '../../../sync/http.js';

interface Held {
  kind: RecordKind;
  id: string;
  version: number;
  scopes: string[];
  record: Record<string, unknown>;
}

interface LogRow {
  kind: RecordKind;
  id: string;
  op: 'put' | 'delete';
  version: number;
  scopes: string[];
  old: string[];
}

const SERVER = 'http://feed.test';

export class FakeFeed {
  records = new Map<string, Held>();
  log: LogRow[] = [];
  position = 0;
  requests: Array<{ path: string; body: any }> = [];
  /** Answer /changes with this status (404: no feed; 410; 503 preparing). */
  status: number | null = null;
  goneCode = 'sync_cursor_expired';
  /** The next N last pages are settling (no checkpoint). */
  settlingPages = 0;
  /** Throw a network error on the Nth request (1-based) of /changes, counting from now. */
  failAfter: number | null = null;
  readonly server = SERVER;

  put(kind: RecordKind, id: string, record: Record<string, unknown>, scopes: string[]): number {
    const key = `${kind}\n${id}`;
    const old = this.records.get(key)?.scopes ?? [];
    const version = ++this.position;
    this.records.set(key, { kind, id, version, scopes, record: { id, ...record } });
    this.log.push({ kind, id, op: 'put', version, scopes, old });
    return version;
  }

  delete(kind: RecordKind, id: string): void {
    const key = `${kind}\n${id}`;
    const old = this.records.get(key)?.scopes ?? [];
    this.records.delete(key);
    this.log.push({ kind, id, op: 'delete', version: ++this.position, scopes: [], old });
  }

  private change(held: Held, scopes: string[]): Change {
    return { kind: held.kind, id: held.id, op: 'put', version: held.version, etag: `"v${held.version}"`, revision: held.version, scopes, record: held.record };
  }

  private sums(keys: string[]) {
    return keys.map((key) => {
      let count = 0;
      let checksum = 0;
      for (const held of this.records.values()) {
        if (!held.scopes.includes(key)) continue;
        count++;
        checksum = addTerm(checksum, recordTerm(held.kind, held.id, held.version));
      }
      return { key, count, checksum };
    });
  }

  private expand(scopes: string[]): string[] {
    const all = new Set([...this.records.values()].flatMap((r) => r.scopes));
    const out = new Set<string>();
    for (const key of scopes) {
      if (key === 'su:*') for (const k of all) k.startsWith('su:') && out.add(k);
      else if (key === 'cat:*') ['cat:patrol_types', 'cat:event_types', 'cat:event_categories', 'cat:choices'].forEach((k) => out.add(k));
      else out.add(key);
    }
    return [...out].sort();
  }

  /**
   * Cursors carry the granted keys they were made for (`g`); a changed set is continued as the
   * server does (server/domain/sync/rekey.ts): with the right `previous_scopes`, added keys (`a`)
   * get a snapshot of their own, then the log goes on; else null (410 sync_scopes_changed).
   */
  private changes(body: { cursor: string | null; scopes: string[]; limit?: number; previous_scopes?: string[] }): FeedPage | null {
    const granted = this.expand(body.scopes);
    const limit = body.limit ?? 500;
    const within = (scopes: string[]) => scopes.filter((s) => granted.includes(s));
    let cursor: { s: number | null; l: number; g: string[]; a?: string[] } = body.cursor ? JSON.parse(body.cursor) : { s: 0, l: this.log.length, g: granted };
    if (cursor.g.join(' ') !== granted.join(' ')) {
      const previous = [...new Set(body.previous_scopes ?? [])].sort();
      if (!body.previous_scopes || previous.join(' ') !== cursor.g.join(' ')) return null;
      const added = granted.filter((key) => !previous.includes(key));
      if (added.length && cursor.s !== null) return null;
      cursor = added.length ? { s: 0, l: cursor.l, g: granted, a: added } : { ...cursor, g: granted };
    }
    const out: Change[] = [];
    if (cursor.s !== null) {
      const of = cursor.a ?? granted;
      const snapshot = [...this.records.values()].filter((r) => r.scopes.some((key) => of.includes(key))).sort((a, b) => (a.kind + a.id < b.kind + b.id ? -1 : 1));
      const slice = snapshot.slice(cursor.s, cursor.s + limit);
      out.push(...slice.map((r) => this.change(r, within(r.scopes))));
      cursor = cursor.s + limit < snapshot.length ? { ...cursor, s: cursor.s + limit } : { s: null, l: cursor.l, g: granted };
    }
    while (out.length < limit && cursor.s === null && cursor.l < this.log.length) {
      const row = this.log[cursor.l++]!;
      const now = this.records.get(`${row.kind}\n${row.id}`);
      const inNow = within(row.scopes);
      if (row.op === 'delete') out.push({ kind: row.kind, id: row.id, op: 'delete', version: row.version, etag: null, revision: null, scopes: [], record: null });
      else if (inNow.length && now && now.version === row.version) out.push(this.change(now, inNow));
      else if (!inNow.length && within(row.old).length) out.push({ kind: row.kind, id: row.id, op: 'remove', version: row.version, etag: null, revision: null, scopes: [], record: null });
    }
    const hasMore = cursor.s !== null || cursor.l < this.log.length;
    const settling = !hasMore && this.settlingPages > 0;
    if (settling) this.settlingPages--;
    const text = JSON.stringify(cursor);
    return { changes: out, cursor: text, has_more: hasMore, settling, checkpoint: hasMore || settling ? null : { cursor: text, scopes: this.sums(granted) }, granted, denied: [] };
  }

  transport(): Transport {
    let changesSeen = 0;
    return async (request: TransportRequest) => {
      const url = new URL(request.url);
      const path = url.pathname.replace('/api/fieldops/v1/sync', '');
      const body = request.body ? JSON.parse(String(request.body)) : null;
      this.requests.push({ path, body });
      const json = (status: number, value: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(value)) });
      if (path === '/changes') {
        changesSeen++;
        if (this.failAfter !== null && changesSeen >= this.failAfter) {
          const { TransportError } = await import('../../../sync/http.js');
          throw new TransportError('killed', request.url, 'ABORTED');
        }
        if (this.status === 410) return json(410, { status: { code: 410, message: 'Gone', detail: 'too old' }, cursor: [{ code: this.goneCode, message: 'x' }] });
        if (this.status === 503) return json(503, { status: { code: 503, message: 'Service Unavailable', detail: 'preparing' }, feed: [{ code: 'sync_preparing', message: 'x' }] });
        if (this.status) return json(this.status, { status: { code: this.status, message: 'Not Found', detail: 'no' } });
        const page = this.changes(body);
        if (!page) return json(410, { status: { code: 410, message: 'Gone', detail: 'scopes' }, sync: [{ code: 'sync_scopes_changed', message: 'x' }] });
        return json(200, page);
      }
      if (path === '/ranges') {
        const entries = [...this.records.values()].filter((r) => r.scopes.includes(body.scope)).map((r) => ({ kind: r.kind, id: r.id, version: r.version })).sort((a, b) => (a.kind + a.id < b.kind + b.id ? -1 : 1));
        const after = body.after ? body.after.kind + body.after.id : '';
        const rest = entries.filter((e) => e.kind + e.id > after);
        const limit = Math.min(body.limit ?? 5000, 2);
        return json(200, { entries: rest.slice(0, limit), has_more: rest.length > limit, settling: false });
      }
      if (path === '/records') {
        return json(200, { changes: body.ids.map((id: string) => {
          const held = this.records.get(`${body.kind}\n${id}`);
          return held ? this.change(held, held.scopes) : { kind: body.kind, id, op: 'delete', version: this.position, etag: null, revision: null, scopes: [], record: null };
        }) });
      }
      return json(404, {});
    };
  }
}

export const event = (time: string, extra: Record<string, unknown> = {}) => ({ event_type: 'wildlife_sighting', time, state: 'new', updated_at: time, ...extra });
