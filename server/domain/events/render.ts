import { normaliseDocument, type ChoiceResolver } from '../../../schema/index.js';
import { canonicalJson } from '../../../schema/diff/canonical.js';
import { flattenSchema, resolveChoiceLookup, SchemaDiffLimitError, type DiffField } from '../../../schema/diff/index.js';
import { layoutOf } from '../../../schema/diff/layout.js';
import { isJsonObject } from '../../../schema/json-pointer.js';
import { foldRevisions } from '../catalog/revision-fold.js';
import type { Repositories } from '../ports.js';
import type { EventRecord, RenderedDetail } from './model.js';

/** The values of `?render=` (issue 28 §4); anything else is a 400 (the query schema). */
export const RENDER_MODES = ['as_recorded'] as const;
export type RenderMode = (typeof RENDER_MODES)[number];

/** A revision's form: its top-level fields in form order, by name. */
interface RecordedForm {
  order: string[];
  fields: Map<string, DiffField>;
}

/**
 * Details as recorded (`?render=as_recorded`): each event's stored details presented through the
 * revision of its v2 type it was recorded against (`schema_revision`), rebuilt by folding the
 * type's history (`foldRevisions`). Order: the revision's `ui` sections (`ui.order`, left column
 * then right column), then its other top-level fields in schema order, then the stored keys it
 * does not describe (title = the key). An event of unknown revision (null: a v1 type, or stored
 * before revisions were kept) or of a type no longer found shows every key in that last form.
 *
 * Bounded reads, whatever the page size: per distinct type value one type read and one history
 * read (up to the highest revision its events need); each (type, revision) is folded once; each
 * referenced choice list is resolved once (`resolver`: choices.json's view of the caller).
 * One instance serves one request.
 */
export class RecordedDetailsRenderer {
  private readonly forms = new Map<string, RecordedForm | null>();
  private readonly lists = new Map<string, ReturnType<ChoiceResolver>>();
  private readonly resolver: ChoiceResolver;

  constructor(private readonly repos: Repositories, private readonly tenantId: string, resolver: ChoiceResolver) {
    // One resolution per list per request, whichever revisions reference it.
    this.resolver = (request) => {
      if (!this.lists.has(request.field)) this.lists.set(request.field, resolver(request));
      return this.lists.get(request.field)!;
    };
  }

  /** Rendered details by event id. One query at a time: `repos` may be a transaction's. */
  async render(events: readonly EventRecord[]): Promise<Map<string, RenderedDetail[]>> {
    const wanted = new Map<string, Set<number>>();
    for (const event of events) {
      if (event.schemaRevision === null) continue;
      const revisions = wanted.get(event.eventType) ?? new Set<number>();
      revisions.add(event.schemaRevision);
      wanted.set(event.eventType, revisions);
    }
    for (const [value, revisions] of wanted) await this.loadForms(value, revisions);
    const out = new Map<string, RenderedDetail[]>();
    for (const event of events) {
      const form = event.schemaRevision === null ? null : this.forms.get(formKey(event.eventType, event.schemaRevision)) ?? null;
      out.set(event.id, renderDetails(event.eventDetails, form));
    }
    return out;
  }

  private async loadForms(value: string, revisions: ReadonlySet<number>): Promise<void> {
    const missing = [...revisions].filter((revision) => !this.forms.has(formKey(value, revision)));
    if (missing.length === 0) return;
    const type = value.length > 50 ? null : await this.repos.eventTypes.find(this.tenantId, value);
    const entries = type ? await this.repos.catalog.revisionsUpTo(this.tenantId, 'eventtypes', type.id, Math.max(...missing)) : [];
    for (const revision of missing) {
      const state = foldRevisions(entries, revision);
      this.forms.set(formKey(value, revision), state ? await this.formOf(state.schema) : null);
    }
  }

  /** The form of a folded `schema` ({json, ui}); null when it holds none or exceeds the diff's bounds. */
  private async formOf(schema: unknown): Promise<RecordedForm | null> {
    if (!isJsonObject(schema) || !isJsonObject(schema.json)) return null;
    try {
      const doc = normaliseDocument(schema);
      const flat = flattenSchema(doc, await resolveChoiceLookup([doc], this.resolver));
      const top = flat.children.get('') ?? [];
      const fields = new Map(top.map((field) => [field.name, field]));
      const layout = layoutOf(doc);
      const order: string[] = [];
      const seen = new Set<string>();
      const place = (name: string) => {
        if (fields.has(name) && !seen.has(name)) {
          seen.add(name);
          order.push(name);
        }
      };
      // Placements keep section order, then left before right, then row (layoutOf's walk).
      for (const [name] of [...layout.placements].sort(([, a], [, b]) => placementRank(layout.order, a) - placementRank(layout.order, b))) place(name);
      for (const field of top) place(field.name);
      return { order, fields };
    } catch (error) {
      if (error instanceof SchemaDiffLimitError) return null;
      throw error;
    }
  }
}

const formKey = (value: string, revision: number) => `${revision}:${value}`;

const MAX_ROWS = 1_000_000;
function placementRank(order: readonly string[], placement: { section: string; column: 'left' | 'right'; row: number }): number {
  return (order.indexOf(placement.section) * 2 + (placement.column === 'left' ? 0 : 1)) * MAX_ROWS + placement.row;
}

/** The stored details in the form's order, then the keys the form does not describe. */
export function renderDetails(details: Record<string, unknown>, form: RecordedForm | null): RenderedDetail[] {
  const out: RenderedDetail[] = [];
  const listed = new Set<string>();
  for (const name of form?.order ?? []) {
    if (!Object.hasOwn(details, name)) continue;
    const field = form!.fields.get(name)!;
    listed.add(name);
    out.push({ key: name, title: field.title ?? name, value: details[name], display: displayOf(details[name], field) });
  }
  for (const [key, value] of Object.entries(details)) if (!listed.has(key)) out.push({ key, title: key, value, display: asText(value) });
  return out;
}

/** A choice's display name (a list of choices: theirs, comma-separated), else the value as text. */
function displayOf(value: unknown, field: DiffField): string {
  const choices = field.choices?.values;
  if (!choices) return asText(value);
  const one = (v: unknown): string => {
    try {
      return choices.get(canonicalJson(v))?.display ?? asText(v);
    } catch {
      return asText(v);
    }
  };
  return Array.isArray(value) ? value.map(one).join(', ') : one(value);
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
