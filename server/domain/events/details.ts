import {
  classifyStoredDocument, createEventDetailsValidatorCache, preRender, renderV1, SchemaCompileError, v1DetailsSchema, type ChoiceResolver, type EventDetailsValidator,
} from '../../../schema/index.js';
import { toFieldIssue } from '../catalog/schema-write.js';
import type { ChoiceService } from '../choices/service.js';
import { InputError } from '../errors.js';
import { activeChoiceLists } from '../event-types/v1.js';
import type { EventType, EventTypeV1 } from '../model.js';
import type { Repositories } from '../ports.js';
import { readCheckedEventType } from './schema-revision.js';

/** What an event takes from its type: defaults, and whether it is a collection. */
export interface ResolvedEventType {
  value: string;
  display: string;
  version: 1 | 2;
  defaultPriority: number;
  defaultState: 'new' | 'active' | 'resolved';
  isCollection: boolean;
  category: string;
  /** Issue 28 §4: the revision (history `sequence`) of the v2 type as it was read for the check; null for v1 or without history. */
  schemaRevision: number | null;
}

/**
 * `event_details` checked against the event's type (CONTRACT §5b, §11):
 * - a v2 type: its schema pre-rendered with the tenant's choice lists, resolved by reference path
 *   (never from the request's Host, never with the caller's read rights; a missing list accepts
 *   nothing), the root kept closed;
 * - a v1 type (the web app lists them and posts their values): the v1 document rendered from
 *   the tenant's choices, its draft-04 `schema` converted to 2020-12 keywords by the toolkit
 *   (`v1DetailsSchema`: the pseudo-type `checkboxes` is a list of strings), then validated the
 *   same way. A v1 schema that declares no `additionalProperties` stays open,
 *   as the original server treated it.
 * An active v2 type wins over a v1 type of the same value (a migrated type).
 */
export class EventDetailsChecker {
  private readonly validators = createEventDetailsValidatorCache({ maxEntries: 500 });

  constructor(private readonly choices: ChoiceService) {}

  async resolveType(repos: Repositories, tenantId: string, value: string): Promise<ResolvedEventType | null> {
    return (await this.findType(repos, tenantId, value))?.type ?? null;
  }

  /** The active type of that value with its stored row (read once per check). */
  private async findType(repos: Repositories, tenantId: string, value: string): Promise<{ type: ResolvedEventType; v2?: EventType; v1?: EventTypeV1 } | null> {
    if (value.length > 50) return null;
    // The row and its revision read together: the schema checked is the revision recorded.
    const checked = await readCheckedEventType(repos, tenantId, value);
    const v2 = checked?.row;
    if (v2 && v2.isActive) {
      return { v2, type: { value: v2.value, display: v2.display, version: 2, defaultPriority: v2.defaultPriority, defaultState: v2.defaultState, isCollection: v2.isCollection, category: v2.category, schemaRevision: checked.sequence } };
    }
    const v1 = await repos.eventTypesV1.find(tenantId, value);
    if (v1 && v1.isActive) return { v1, type: { value: v1.value, display: v1.display, version: 1, defaultPriority: v1.defaultPriority, defaultState: 'new', isCollection: false, category: v1.category, schemaRevision: null } };
    return null;
  }

  /** The type (400 when there is no active one of that value) after the details satisfy it. */
  async check(repos: Repositories, tenantId: string, value: string, details: Record<string, unknown>): Promise<ResolvedEventType> {
    const found = await this.findType(repos, tenantId, value);
    if (!found) throw InputError.field('event_type', 'unknown_event_type', `No active event type "${value}".`, ['Use the value of a type from /api/v2.0/activity/eventtypes or /api/v1.0/activity/events/eventtypes.']);
    const { type } = found;
    const schema = found.v2 ? await this.v2Schema(tenantId, found.v2) : await this.v1Schema(repos, tenantId, found.v1!);
    if (schema === null) return type;
    const result = this.validatorFor(type.value, schema)(details);
    if (!result.valid) throw new InputError('event_details does not satisfy the event type schema.', { event_details: result.issues.map(toFieldIssue) });
    return type;
  }

  private async v2Schema(tenantId: string, type: EventType): Promise<unknown> {
    const stored = classifyStoredDocument(type.schema);
    if (!stored.ok || Object.keys(stored.document.json).length === 0) return null;
    const resolver: ChoiceResolver = this.choices.validationResolver(tenantId);
    // Choices as `enum`: a wrong value is one issue, not one per choice.
    const rendered = await preRender(stored.document, resolver, { keepRootClosure: true, shape: 'enum' });
    return (rendered.document as { json: unknown }).json;
  }

  /** A schema stored before today's rules (e.g. a pattern RE2 cannot run) makes the type unusable, not the server. */
  private validatorFor(value: string, schema: unknown): EventDetailsValidator {
    try {
      return this.validators.build(schema);
    } catch (error) {
      if (!(error instanceof SchemaCompileError)) throw error;
      throw new InputError(`The schema of event type "${value}" cannot be used to validate event_details.`, {
        event_type: error.issues.map((issue) => ({ ...toFieldIssue(issue), hints: ['an administrator must fix the event type schema; writing it again reports what to change'] })),
      });
    }
  }

  /** The rendered v1 `schema` member in 2020-12 terms (v1 pseudo-types included); null when the type has none. */
  private async v1Schema(repos: Repositories, tenantId: string, type: EventTypeV1): Promise<unknown> {
    const rendered = renderV1(type.schemaText, await activeChoiceLists(repos, tenantId));
    return rendered.document ? v1DetailsSchema(rendered.document) : null;
  }
}
