/**
 * The event-type schema endpoints of one server (issue 28's HTTP contract), for `fieldops schema`.
 * Services know no terminal: every unexpected answer becomes a `ClientFailure` with a hint, and
 * server text is sanitised where it enters (describeErrorBody).
 */
import { failure, type ClientFailure } from '../../sync/errors.js';
import { describeErrorBody, parseJsonBody, unexpectedResponse } from '../../sync/http-errors.js';
import { header, type Transport, type TransportResponse } from '../../sync/http.js';
import type { CompatFinding } from '../../schema/compat/types.js';

export const EVENT_TYPES = '/api/v2.0/activity/eventtypes';
export const CHOICES = '/api/v2.0/choices';
export const CATEGORIES = '/api/v2.0/activity/eventcategories';
/** Pages read per list at most (a catalog or choice list beyond 100 pages is refused, not read forever). */
const MAX_PAGES = 100;

export type EventTypeRecord = Record<string, any> & { value: string; schema?: unknown };

export interface AsOf {
  record: EventTypeRecord;
  revision: number;
  revisionTime: string | null;
}

/** `{data: X}` (the contract's envelope) or X itself (the detail presentation). */
export function unwrap(body: any): any {
  return body && typeof body === 'object' && !Array.isArray(body) && 'data' in body && !('value' in body) ? body.data : body;
}

export class SchemaApi {
  constructor(
    readonly transport: Transport,
    readonly server: string,
  ) {}

  private url(path: string): string {
    return `${this.server}${path}`;
  }

  private typePath(value: string, tail = ''): string {
    return `${EVENT_TYPES}/${encodeURIComponent(value)}${tail}`;
  }

  async request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TransportResponse> {
    return this.transport({
      method,
      url: this.url(path),
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** The current type with its schema and ETag; null when the server has no such type. */
  async current(value: string): Promise<{ record: EventTypeRecord; etag: string | undefined } | null> {
    const response = await this.request('GET', this.typePath(value, '?include_schema=true&include_inactive=true'));
    if (response.status === 404) return null;
    if (response.status !== 200) throw unexpectedResponse(response, `the event type "${value}"`, this.server);
    return { record: unwrap(parseJsonBody(response, 'an event type')), etag: header(response, 'etag') };
  }

  async requireCurrent(value: string): Promise<{ record: EventTypeRecord; etag: string | undefined }> {
    const found = await this.current(value);
    if (!found) throw unknownType(value, this.server);
    return found;
  }

  /** The type as of a revision (history `sequence`) or an ISO date; null when it did not exist then. */
  async asOf(value: string, at: { revision: number } | { date: string }): Promise<AsOf | null> {
    const query = 'revision' in at ? `revision=${at.revision}` : `date=${encodeURIComponent(at.date)}`;
    const response = await this.request('GET', this.typePath(value, `/as_of?${query}`));
    if (response.status === 404) {
      if (!(await this.current(value))) throw unknownType(value, this.server);
      return null;
    }
    if (response.status === 400) throw failure('usage', `the server refused the revision: ${describeErrorBody(response) ?? 'HTTP 400'}`, 'give a revision number (the history\'s sequence) or an ISO 8601 date', response);
    if (response.status !== 200) throw unexpectedResponse(response, `the revisions of "${value}"`, this.server);
    const record = unwrap(parseJsonBody(response, 'a revision'));
    return { record, revision: Number(record.revision), revisionTime: record.revision_time ?? null };
  }

  /** The latest history sequence (entries are numbered 1, 2, 3... per type, so the count is the last one). */
  async latestRevision(value: string): Promise<number> {
    const response = await this.request('GET', this.typePath(value, '/updates?page_size=1&include_inactive=true'));
    if (response.status === 404) throw unknownType(value, this.server);
    if (response.status !== 200) throw unexpectedResponse(response, `the history of "${value}"`, this.server);
    return Number(unwrap(parseJsonBody(response, 'a history page'))?.count ?? 0);
  }

  async restore(value: string, revision: number, etag: string | undefined, dryRun: boolean): Promise<any> {
    const response = await this.request('POST', this.typePath(value, `/restore${dryRun ? '?dry_run=true' : ''}`), { revision }, etag ? { 'if-match': etag } : {});
    if (response.status === 200) return unwrap(parseJsonBody(response, 'a restore answer'));
    throw this.writeFailure(response, value, 'restore');
  }

  async putDraft(value: string, schema: unknown): Promise<any> {
    const response = await this.request('PUT', this.typePath(value, '/draft'), { schema });
    if (response.status === 200 || response.status === 201) return unwrap(parseJsonBody(response, 'a draft'));
    throw this.writeFailure(response, value, 'draft');
  }

  async discardDraft(value: string): Promise<void> {
    const response = await this.request('DELETE', this.typePath(value, '/draft'));
    if (response.status === 204 || response.status === 200) return;
    if (response.status === 404) await this.noDraft(value);
    throw this.writeFailure(response, value, 'discard');
  }

  /** The stored draft (`based_on_revision`, `schema`, ...); null when the type has none. */
  async draft(value: string): Promise<{ based_on_revision: number; schema: unknown } | null> {
    const response = await this.request('GET', this.typePath(value, '/draft'));
    if (response.status === 404) return null;
    if (response.status !== 200) throw unexpectedResponse(response, `the draft of "${value}"`, this.server);
    return unwrap(parseJsonBody(response, 'a draft'));
  }

  /**
   * Publishes the draft: the new record, or the findings that stopped it (409 `breaking_changes`).
   * A 412 means the type gained a revision after the draft was written (not a race: running
   * again changes nothing), so it says which revisions and how to go on.
   */
  async publish(value: string, allowBreaking: Array<{ rule: string; reason: string }>, rebase = false): Promise<{ record: EventTypeRecord } | { findings: CompatFinding[] }> {
    const response = await this.request('POST', this.typePath(value, `/publish${rebase ? '?rebase=true' : ''}`), allowBreaking.length ? { allow_breaking: allowBreaking } : {});
    if (response.status === 200) return { record: unwrap(parseJsonBody(response, 'an event type')) };
    if (response.status === 409) {
      const body = parseJsonBody<any>(response, 'an error');
      const findings = body?.findings ?? body?.data?.findings ?? body?.status?.findings;
      if (Array.isArray(findings)) return { findings };
    }
    if (response.status === 404) await this.noDraft(value);
    if (response.status === 412 && !rebase) await this.draftBehind(value);
    throw this.writeFailure(response, value, 'publish');
  }

  private async draftBehind(value: string): Promise<void> {
    const [draft, latest] = await Promise.all([this.draft(value), this.latestRevision(value)]);
    const based = Number(draft?.based_on_revision);
    if (!draft || !Number.isInteger(based) || based >= latest) return; // not that: the generic 412 below
    throw failure(
      'input',
      `the draft of "${value}" is based on revision ${based}; the type is now at revision ${latest}`,
      `see what changed since: \`fieldops schema diff ${value} --from ${based} --to server\`; then store the draft again (\`fieldops schema draft ${value} FILE\`), or publish it over the newer revision with --rebase`,
    );
  }

  private async noDraft(value: string): Promise<never> {
    if (!(await this.current(value))) throw unknownType(value, this.server);
    throw failure('input', `"${value}" has no draft on ${this.server}`, `store one first: \`fieldops schema draft ${value} FILE\``);
  }

  writeFailure(response: TransportResponse, value: string, what: string): ClientFailure {
    const detail = describeErrorBody(response) ?? `HTTP ${response.status}`;
    switch (response.status) {
      case 400:
      case 422:
        return failure('input', `the server refused the ${what} of "${value}": ${detail}`, 'fix the document (`fieldops lint FILE` shows where) and try again');
      case 403:
        return failure('permission', `not allowed to ${what} "${value}": ${detail}`, 'it needs the change_eventtype permission: ask an administrator');
      case 404:
        return unknownType(value, this.server);
      case 409:
      case 412:
      case 428:
        return failure('server', `"${value}" changed on the server while this command ran (${response.status}): ${detail}`, 'run the command again (it reads the current revision first)');
      default:
        return unexpectedResponse(response, `the ${what} of "${value}"`, this.server);
    }
  }

  /** Every page of a list endpoint (`{count, next, results}` or a bare array). */
  async all(path: string, what: string): Promise<any[]> {
    const items: any[] = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const response = await this.request('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=200`);
      if (response.status !== 200) throw unexpectedResponse(response, what, this.server);
      const body = unwrap(parseJsonBody<any>(response, what));
      if (Array.isArray(body)) return body;
      for (const item of body?.results ?? []) items.push(item);
      if (!body?.next) return items;
    }
    throw failure('server', `${what} on ${this.server} span more than ${MAX_PAGES} pages`, 'copy fewer types at once');
  }
}

export function unknownType(value: string, server: string): ClientFailure {
  return failure('input', `no event type "${value}" on ${server}`, 'list them with `fieldops types list --kind event --all` (after `fieldops sync`); the value is case-sensitive');
}
