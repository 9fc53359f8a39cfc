import { randomUUID } from 'node:crypto';
import { CHOICE_FIELD_NAME, parseChoiceReference, type ChoiceResolver } from '../../../schema/index.js';
import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission, requirePrincipal } from '../context.js';
import { BodyReader } from '../catalog/fields.js';
import { strongEtag, type Validators } from '../catalog/etag.js';
import { InputError, NotAllowedError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Choice } from '../model.js';
import type { Store } from '../ports.js';
import { ChoiceReadAccess } from './access.js';

const CATALOG = 'choices';
const VALUE = /^[a-z0-9_-]+$/;

/**
 * Choice lists (CONTRACT §4): CRUD, the choices.json reference endpoint, and the resolver that
 * pre-rendering uses, which goes through the same read with the caller's rights.
 */
export class ChoiceService {
  private readonly access: ChoiceReadAccess;

  constructor(private readonly deps: { store: Store; clock: Clock }) {
    this.access = new ChoiceReadAccess(deps);
  }

  /**
   * Active choices of the named lists, in display order: what choices.json and pre-rendering
   * serve. The caller must be allowed to read each list (see ChoiceReadAccess).
   */
  async activeChoices(ctx: RequestContext, fields: readonly string[]): Promise<Choice[]> {
    const principal = requirePrincipal(ctx);
    checkFieldNames(fields);
    await this.access.require(principal, fields);
    return this.activeChoicesOf(principal.tenantId, fields);
  }

  /** `fields` are checked names (checkFieldNames). */
  private async activeChoicesOf(tenantId: string, fields: readonly string[]): Promise<Choice[]> {
    const choices = await this.deps.store.repos.choices.list(tenantId, { fields, includeInactive: false });
    // One list after another, in the order the fields were asked for.
    return fields.flatMap((field) => choices.filter((choice) => choice.field === field));
  }

  /**
   * Resolves choice references the way choices.json would answer this caller. CONTRACT §11: a
   * reference is resolved by its path on any host (documents carry the base URL of the site
   * that wrote them) and nothing is ever fetched, so the answer depends on no request header.
   * A malformed reference (an unknown path), a list the tenant does not have, or no rights
   * (ChoiceReadAccess): null, which pre-rendering turns into `{}` and a warning.
   */
  resolverFor(ctx: RequestContext): ChoiceResolver {
    return async ({ url, field }) => {
      const reference = parseChoiceReference(url);
      if (!reference || !reference.fields.includes(field) || !ctx.principal) return null;
      let choices: Choice[];
      try {
        choices = await this.activeChoices(ctx, [field]);
      } catch (error) {
        if (error instanceof NotAllowedError) return null;
        throw error;
      }
      return choices.length === 0 ? null : choices.map((choice) => ({ value: choice.value, display: choice.display }));
    };
  }

  /**
   * The resolver that validating `event_details` uses: the tenant's active lists, by reference
   * path on any host (CONTRACT §11), whatever the caller may read and whatever the request's
   * headers. It fails closed: a list the tenant does not have, or an empty one, accepts no value
   * (`[]`, rendered as `enum: []`), where a served pre-render shows `{}`; otherwise a reference to
   * a missing list would switch validation of its field off.
   */
  validationResolver(tenantId: string): ChoiceResolver {
    return async ({ url, field }) => {
      const reference = parseChoiceReference(url);
      if (!reference || !reference.fields.includes(field)) return null;
      const choices = await this.deps.store.repos.choices.list(tenantId, { fields: [field], includeInactive: false });
      return choices.map((choice) => ({ value: choice.value, display: choice.display }));
    };
  }

  /**
   * Validators of a choice list page: the tenant's choices version and the normalised query.
   * (Not in the specification's list of validated resources; offered so that offline clients
   * revalidate choices as cheaply as the catalogs.)
   */
  async listValidators(ctx: RequestContext, queryKey: string): Promise<Validators> {
    const { tenantId } = requirePermission(ctx, 'view_choice');
    const { version, lastModified } = await this.deps.store.repos.catalog.version(tenantId, CATALOG);
    // Never written: no Last-Modified (not 1970).
    return { etag: strongEtag(CATALOG, tenantId, version, queryKey), ...(lastModified > 0 ? { lastModified } : {}) };
  }

  async list(ctx: RequestContext, filter: { field: string | null; includeInactive: boolean }, page: { offset: number; limit: number }) {
    const { tenantId } = requirePermission(ctx, 'view_choice');
    const query = { fields: filter.field ? [filter.field] : null, includeInactive: filter.includeInactive };
    const { choices } = this.deps.store.repos;
    return { total: await choices.count(tenantId, query), items: await choices.list(tenantId, query, page) };
  }

  async get(ctx: RequestContext, id: string): Promise<Choice> {
    const { tenantId } = requirePermission(ctx, 'view_choice');
    const choice = isUuid(id) ? await this.deps.store.repos.choices.find(tenantId, id.toLowerCase()) : null;
    if (!choice) throw new NotFoundError('No such choice.');
    return choice;
  }

  async create(ctx: RequestContext, body: unknown): Promise<Choice> {
    const { tenantId } = requirePermission(ctx, 'add_choice');
    const fields = readChoiceBody(body, 'create');
    return this.write(tenantId, async (repos, now) => {
      if (await repos.choices.findByValue(tenantId, fields.field!, fields.value!)) {
        throw InputError.field('value', 'unique', `The list "${fields.field}" already has the value "${fields.value}".`, ['Choose another value.']);
      }
      const choice: Choice = {
        id: randomUUID(), tenantId, field: fields.field!, value: fields.value!, display: fields.display ?? fields.value!,
        ordernum: fields.ordernum ?? null, icon: fields.icon ?? '', isActive: fields.isActive ?? true, createdAt: now, updatedAt: now,
      };
      await repos.choices.insert(choice);
      return { choice, changed: true };
    }).then((outcome) => outcome.choice);
  }

  /** Reads and writes under the choices lock, so concurrent updates cannot lose each other. */
  async update(ctx: RequestContext, id: string, body: unknown, mode: 'replace' | 'patch'): Promise<Choice> {
    const { tenantId } = requirePermission(ctx, 'change_choice');
    const fields = readChoiceBody(body, mode);
    return this.write(tenantId, async (repos, now) => {
      const current = isUuid(id) ? await repos.choices.find(tenantId, id.toLowerCase()) : null;
      if (!current) throw new NotFoundError('No such choice.');
      const next: Choice = { ...current, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
      if ((next.field !== current.field || next.value !== current.value) && (await repos.choices.findByValue(tenantId, next.field, next.value))) {
        throw InputError.field('value', 'unique', `The list "${next.field}" already has the value "${next.value}".`, ['Choose another value.']);
      }
      if (JSON.stringify(next) === JSON.stringify(current)) return { choice: current, changed: false };
      const saved = { ...next, updatedAt: now };
      await repos.choices.update(saved);
      return { choice: saved, changed: true };
    }).then((outcome) => outcome.choice);
  }

  /** DELETE deactivates: referencing documents keep working and history keeps its meaning. */
  async deactivate(ctx: RequestContext, id: string): Promise<void> {
    await this.update(ctx, id, { is_active: false }, 'patch');
  }

  /** One transaction under the choices lock; the version moves only when something changed. */
  private write<T extends { changed: boolean }>(tenantId: string, work: (repos: Store['repos'], now: number) => Promise<T>): Promise<T> {
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, CATALOG);
      const now = this.deps.clock.now();
      const result = await work(repos, now);
      if (result.changed) await repos.catalog.bump(tenantId, CATALOG, now);
      return result;
    });
  }
}

function checkFieldNames(fields: readonly string[]): void {
  if (fields.length === 0 || fields.some((field) => !CHOICE_FIELD_NAME.test(field))) {
    throw InputError.field('field', 'invalid', 'field must name one or more choice lists (letters, digits, - and _), comma-separated.', ['For example ?field=species,condition']);
  }
}

function readChoiceBody(body: unknown, mode: 'create' | 'replace' | 'patch'): Partial<Choice> {
  const reader = BodyReader.of(body);
  const required = mode !== 'patch';
  reader.rejectUnknown(['field', 'value', 'display', 'ordernum', 'icon', 'is_active'], ['id', 'created_at', 'updated_at']);
  const ordernum = reader.has('ordernum') ? reader.body.ordernum : undefined;
  if (ordernum !== undefined && ordernum !== null && (typeof ordernum !== 'number' || !Number.isFinite(ordernum))) {
    reader.add('ordernum', { code: 'invalid_type', message: 'ordernum must be a number or null.', hints: ['For example 10.'] });
  }
  const fields: Partial<Choice> = {
    field: reader.string('field', { max: 40, pattern: CHOICE_FIELD_NAME, patternHint: 'Use letters, digits, - and _.', required }),
    value: reader.string('value', { max: 100, pattern: VALUE, patternHint: 'Use lower-case letters, digits, - and _.', required }),
    display: reader.string('display', { max: 100 }),
    icon: reader.string('icon', { max: 255 }),
    isActive: reader.boolean('is_active'),
    ordernum: ordernum as number | null | undefined,
  };
  reader.finish('The choice is not valid.');
  return fields;
}
