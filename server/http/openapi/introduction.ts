/** The document's general part: conventions every operation follows (CONTRACT §1, §2). */

export const INTRODUCTION = `An offline-first field-operations service: patrol types and patrols, event types with JSON Schema 2020-12 documents, choices, events, sensor intake, OAuth 2 and users. It speaks the API of the public EarthRanger server.

**Conventions.**
- Every path also answers with a trailing slash.
- JSON in and out (\`application/json; charset=utf-8\`). Timestamps are ISO 8601 with an offset, millisecond precision, UTC on output; an input without an offset is 400.
- Query booleans are case-insensitive: \`true|1|yes|on\` and \`false|0|no|off|''\`; anything else is 400. A repeated single-valued parameter counts with its last value; an empty one as absent.
- Paginated lists are \`{count, next, previous, results}\` with \`page\` (1-based) and \`page_size\` (default 25, at most 4000); a page past the end is 404.
- Errors outside OAuth: \`{"status": {"code", "message", "detail"}, <field>: [{"code", "message", "hints", "pointer"}]}\`. Never a 500 for bad input. OAuth endpoints answer with RFC 6749 bodies (\`error\`, \`error_description\`).
- Requests are checked against the schemas below before anything else happens (after authentication).

**Identity.** A user sends \`Authorization: Bearer <token>\` (from \`/oauth2/token/\`); an application sends \`client_id\` in the query, plus its secret by HTTP Basic or \`client_secret\` when confidential. Permissions are Django-style codenames; a superuser has all. \`User-Profile: <user id>\` acts as one of the caller's profiles. Another tenant's objects are 404.`;

export const TAGS = [
  { name: 'patrol types', description: 'The patrol type catalog, with conditional GET for offline clients.' },
  { name: 'patrols', description: 'Patrols, segments, notes, files and the tracked-by schema.' },
  { name: 'event types', description: 'v2 event types: JSON Schema 2020-12 documents with a ui layout.' },
  { name: 'event categories', description: 'Categories of event types.' },
  { name: 'event types (v1)', description: 'v1 event types held as template text, rendered for v1 clients, and migrated to v2.' },
  { name: 'events', description: 'Events and segment events.' },
  { name: 'choices', description: 'Choice lists and the choices.json reference endpoint.' },
  { name: 'sensors', description: 'Sensor intake: GPS radios, radio agents, camera traps.' },
  { name: 'observations', description: 'Observations and subjects recorded by the sensors.' },
  { name: 'users', description: 'The users API.' },
  { name: 'oauth', description: 'OAuth 2 authorization server.' },
  { name: 'operations', description: 'Health, readiness, metrics, and this description.' },
  { name: 'sync', description: 'The sync change feed (a fieldops extension; docs/sync.md): changes in commit order with tombstones, scopes and verified checkpoints.' },
];

export const SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'A user\'s access token from /oauth2/token/ (the scheme name is case-insensitive).' },
  clientId: { type: 'apiKey', in: 'query', name: 'client_id', description: 'An application (OAuth client) principal.' },
  clientSecret: { type: 'apiKey', in: 'query', name: 'client_secret', description: 'A confidential application\'s secret (or use HTTP Basic).' },
  clientBasic: { type: 'http', scheme: 'basic', description: 'An application\'s client_id and secret.' },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'The static scrape token configured with FIELDOPS_METRICS_TOKEN (/metrics only).' },
};
