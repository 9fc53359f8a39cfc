/**
 * v2 event types as the original lists them (issue 27): with `url` (where the type is),
 * `resolve_time` and `auto_resolve` (accepted and not stored here: never set, so `null` and
 * `false`). The origin of `url` is the one the item's `image_url` was built with (the request's,
 * proxy rules applied), so the two always agree.
 *
 * Schema documents (`schema` with `include_schema`, `…/<v>/schema`, `…/schemas`) are served
 * without `ui.fields[*].choices`: the original keeps the form builder's choice-list source to
 * itself when it presents a v2 schema (the choices reach the client through the `json` side's
 * references). Stored documents keep them (CONTRACT §11 normalisation), and the fieldops profile
 * serves them as stored.
 *
 * `has_events_assigned` is not added here: it is a fact of the tenant's events, so the catalog
 * read asks for it (catalog-query.ts `withUsage`, for callers in this profile) and its ETag
 * covers it; items of the list and the detail carry it.
 */
type Entry = Record<string, unknown>;

const isRecord = (value: unknown): value is Entry => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A `{json, ui}` document without its ui fields' `choices`; anything else as it is. */
export function withoutUiChoices(document: unknown): unknown {
  if (!isRecord(document) || !isRecord(document.ui) || !isRecord(document.ui.fields)) return document;
  const fields = document.ui.fields;
  if (!Object.values(fields).some((field) => isRecord(field) && Object.hasOwn(field, 'choices'))) return document;
  const bare: Entry = {};
  for (const [name, field] of Object.entries(fields)) {
    if (!isRecord(field) || !Object.hasOwn(field, 'choices')) {
      bare[name] = field;
      continue;
    }
    const { choices: _choices, ...rest } = field;
    bare[name] = rest;
  }
  return { ...document, ui: { ...document.ui, fields: bare } };
}

export function originalEventType(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const entry = item;
  let origin = '';
  try {
    origin = new URL(String(entry.image_url)).origin;
  } catch {
    // No image_url: a root-relative url.
  }
  return {
    ...entry,
    resolve_time: entry.resolve_time ?? null,
    auto_resolve: entry.auto_resolve ?? false,
    url: `${origin}/api/v2.0/activity/eventtypes/${encodeURIComponent(String(entry.value ?? ''))}`,
    ...(Object.hasOwn(entry, 'schema') ? { schema: withoutUiChoices(entry.schema) } : {}),
  };
}

export function originalEventTypes(payload: unknown): unknown {
  return Array.isArray(payload) ? payload.map(originalEventType) : payload;
}

/** `…/schemas`: `{count, results: [{value, status, schema, errors?}]}`, each schema as the original presents it. */
export function originalSchemaBatch(payload: unknown): unknown {
  if (!isRecord(payload) || !Array.isArray(payload.results)) return payload;
  return { ...payload, results: payload.results.map((result) => (isRecord(result) ? { ...result, schema: withoutUiChoices(result.schema) } : result)) };
}
