import { randomUUID } from 'node:crypto';
import { errorsOf, parseV1, renderV1, type ChoiceEntry } from '../../../schema/index.js';
import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { BodyReader } from '../catalog/fields.js';
import { PRIORITIES, VALUE_PATTERN, presentOnly } from '../catalog/input.js';
import { toFieldIssue } from '../catalog/schema-write.js';
import { InputError, NotFoundError } from '../errors.js';
import type { EventTypeV1 } from '../model.js';
import type { Repositories, Store } from '../ports.js';

/** v1 documents are text; a generous limit still bounds what parsing and storage take on. */
const MAX_V1_TEXT = 256 * 1024;

/**
 * v1 event types (CONTRACT §5): their template-text documents are held verbatim so that they
 * can be served rendered to v1 clients and migrated to v2. Text whose tags are malformed is
 * refused at write time with the line and column of each problem.
 */
export class EventTypeV1Service {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async list(ctx: RequestContext): Promise<EventTypeV1[]> {
    const { tenantId } = requirePermission(ctx, 'view_eventtype');
    return this.deps.store.repos.eventTypesV1.list(tenantId);
  }

  async get(ctx: RequestContext, key: string): Promise<EventTypeV1> {
    const { tenantId } = requirePermission(ctx, 'view_eventtype');
    return this.find(this.deps.store.repos, tenantId, key);
  }

  async create(ctx: RequestContext, body: unknown): Promise<EventTypeV1> {
    const { tenantId } = requirePermission(ctx, 'add_eventtype');
    const fields = readV1Body(body, 'create');
    return this.deps.store.transaction(async (repos) => {
      if (await repos.eventTypesV1.find(tenantId, fields.value!)) throw InputError.field('value', 'unique', `A v1 event type "${fields.value}" already exists.`);
      const now = this.deps.clock.now();
      const type: EventTypeV1 = {
        id: randomUUID(), tenantId, value: fields.value!, display: fields.display ?? '', category: fields.category ?? '',
        defaultPriority: fields.defaultPriority ?? 0, isActive: fields.isActive ?? true, schemaText: fields.schemaText!,
        migratedTo: null, createdAt: now, updatedAt: now,
      };
      await repos.eventTypesV1.insert(type);
      await repos.catalog.bump(tenantId, 'eventtypes_v1', now);
      return type;
    });
  }

  async update(ctx: RequestContext, key: string, body: unknown, mode: 'replace' | 'patch'): Promise<EventTypeV1> {
    const { tenantId } = requirePermission(ctx, 'change_eventtype');
    const fields = readV1Body(body, mode);
    return this.deps.store.transaction(async (repos) => {
      const current = await this.find(repos, tenantId, key);
      if (fields.value && fields.value !== current.value && (await repos.eventTypesV1.find(tenantId, fields.value))) {
        throw InputError.field('value', 'unique', `A v1 event type "${fields.value}" already exists.`);
      }
      const next = { ...current, ...presentOnly(fields), updatedAt: this.deps.clock.now() };
      await repos.eventTypesV1.update(next);
      await repos.catalog.bump(tenantId, 'eventtypes_v1', next.updatedAt);
      return next;
    });
  }

  /** The v1 document with its tags replaced from the tenant's active choices, as v1 clients read it. */
  async render(ctx: RequestContext, key: string): Promise<Record<string, unknown>> {
    const { tenantId } = requirePermission(ctx, 'view_eventtype');
    const { repos } = this.deps.store;
    const type = await this.find(repos, tenantId, key);
    const rendered = renderV1(type.schemaText, await activeChoiceLists(repos, tenantId));
    if (!rendered.document) throw new InputError('The stored v1 document cannot be rendered.', { schema: errorsOf(rendered.issues).map(toFieldIssue) });
    return rendered.document;
  }

  private async find(repos: Repositories, tenantId: string, key: string): Promise<EventTypeV1> {
    const type = key.length <= 100 ? await repos.eventTypesV1.find(tenantId, key) : null;
    if (!type) throw new NotFoundError('No such v1 event type.');
    return type;
  }
}

/** The tenant's active choices by list name, for rendering and migration. */
export async function activeChoiceLists(repos: Repositories, tenantId: string): Promise<Map<string, ChoiceEntry[]>> {
  const lists = new Map<string, ChoiceEntry[]>();
  for (const choice of await repos.choices.list(tenantId, { fields: null, includeInactive: false })) {
    const entries = lists.get(choice.field) ?? [];
    entries.push({ value: choice.value, display: choice.display });
    lists.set(choice.field, entries);
  }
  return lists;
}

function readV1Body(body: unknown, mode: 'create' | 'replace' | 'patch'): Partial<EventTypeV1> {
  const reader = BodyReader.of(body);
  const required = mode !== 'patch';
  // Issue 27: what the original's v1 serializer also takes (`icon`, `ordernum`, `geometry_type`,
  // `is_collection`) and serves (`icon_id`, `url`) is accepted and ignored: a v1 type here is its document.
  reader.rejectUnknown(['value', 'display', 'category', 'default_priority', 'is_active', 'schema'], ['id', 'version', 'created_at', 'updated_at', 'migrated_to', 'icon', 'icon_id', 'ordernum', 'geometry_type', 'is_collection', 'url']);
  const fields: Partial<EventTypeV1> = {
    value: reader.string('value', { max: 50, pattern: VALUE_PATTERN, patternHint: 'Use letters, digits, "-" and "_" only.', required }),
    display: reader.string('display', { max: 255 }),
    category: reader.string('category', { max: 50 }),
    defaultPriority: reader.oneOf('default_priority', PRIORITIES),
    isActive: reader.boolean('is_active'),
  };
  if (reader.has('schema')) {
    // The v1 document is template text; a client may also send the (tag-free) JSON itself.
    const raw = reader.body.schema;
    const text = typeof raw === 'string' ? raw : raw && typeof raw === 'object' ? JSON.stringify(raw) : null;
    if (text === null) reader.add('schema', { code: 'schema_structure_error', message: 'schema must be the v1 document text.', hints: ['Send the document as a JSON string.'] });
    else if (text.length > MAX_V1_TEXT) reader.add('schema', { code: 'max_length', message: `The v1 document is larger than ${MAX_V1_TEXT} characters.`, hints: ['Split the type or trim the document.'] });
    else {
      const problems = errorsOf(parseV1(text).issues);
      if (problems.length > 0) for (const issue of problems) reader.add('schema', { ...toFieldIssue(issue), hints: [...issue.hints, ...(issue.location ? [`line ${issue.location.line}, column ${issue.location.column}`] : [])] });
      else fields.schemaText = text;
    }
  } else if (required) {
    reader.add('schema', { code: 'required', message: 'The v1 document is required.', hints: ['Send it as a string in "schema".'] });
  }
  reader.finish('The v1 event type is not valid.');
  return presentOnly(fields);
}
