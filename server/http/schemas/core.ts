import { AUTH_ERRORS, array, created, dateTime, envelope, errorBody, errors, object, ok, oauthErrorBody, openObject, str, uuid } from './common.js';
import { type JSONSchema, type ResponseSpec, type RouteSchema, named } from './types.js';

/** Health, OAuth 2 and users (CONTRACT §8, §9). */

export const healthz: RouteSchema = {
  summary: 'Liveness: the process answers (no I/O)',
  tags: ['operations'],
  responses: { 200: ok(object({ status: { const: 'ok' } })) },
};

export const readyz: RouteSchema = {
  summary: 'Readiness: the database answers and no migration is pending',
  description: 'Answers 503 (with the reason in `status.detail`) while the database is unreachable or migrations are pending; the server keeps running and becomes ready again by itself.',
  tags: ['operations'],
  responses: { 200: ok(object({ status: { const: 'ready' } })), 503: { description: 'Not ready.', json: errorBody } },
};

export const oauthMetadata: RouteSchema = {
  summary: 'OAuth 2 authorization server metadata (RFC 8414)',
  tags: ['oauth'],
  responses: { 200: ok({ type: 'object', required: ['issuer', 'token_endpoint'], properties: { issuer: { type: 'string', format: 'uri' }, token_endpoint: { type: 'string', format: 'uri' } } }), ...errors(400) },
};

const oauthError = (description: string): ResponseSpec => ({ description, json: oauthErrorBody });
const oauthErrors: Record<number, ResponseSpec> = {
  400: oauthError('RFC 6749 §5.2 error (invalid_request, invalid_grant, unsupported_grant_type, ...).'),
  401: oauthError('invalid_client.'),
  413: oauthError('The form is too large.'),
  429: { description: 'Too many failed password or client-secret attempts (`Retry-After`).', json: oauthErrorBody },
  503: { description: 'The database is unavailable (contract body), or the server is saturated with credential checks (RFC 6749 body, `Retry-After`).', json: { anyOf: [errorBody, oauthErrorBody] } },
};

const tokenForm: JSONSchema = {
  type: 'object',
  properties: {
    grant_type: { enum: ['password', 'refresh_token', 'authorization_code'] },
    client_id: str(), client_secret: str(undefined, { description: 'Confidential clients (or HTTP Basic).' }),
    username: str(undefined, { description: 'password grant.' }), password: str(undefined, { description: 'password grant.' }),
    refresh_token: str(undefined, { description: 'refresh_token grant.' }),
    code: str(undefined, { description: 'authorization_code grant.' }), redirect_uri: str(), code_verifier: str(undefined, { description: 'PKCE (S256).' }),
  },
  required: ['grant_type'],
};

export const oauthToken: RouteSchema = {
  summary: 'Token endpoint: password, refresh_token and authorization_code grants',
  description: 'Form-encoded (`application/x-www-form-urlencoded` or `multipart/form-data`); each parameter once. Refresh tokens rotate on use; reuse of a rotated one revokes its family.',
  tags: ['oauth'],
  body: { kind: 'form', schema: tokenForm },
  responses: {
    200: ok(object({ access_token: str(), token_type: { const: 'Bearer' }, expires_in: { type: 'integer' }, refresh_token: str(), scope: { const: 'read write' } })),
    ...oauthErrors,
  },
  security: 'public',
};

export const oauthRevoke: RouteSchema = {
  summary: 'Revoke an access or refresh token (RFC 7009)',
  tags: ['oauth'],
  body: { kind: 'form', schema: { type: 'object', properties: { token: str(), client_id: str(), client_secret: str() }, required: ['token'] } },
  responses: { 200: ok(object({}), 'Revoked, or unknown (also 200).'), ...oauthErrors },
  security: 'public',
};

export const oauthAuthorize: RouteSchema = {
  summary: 'A logged-in user authorises a client: the callback URL with a code',
  description: 'Answers 200 with `Location` (the callback with `code` and `state` appended), not a redirect.',
  tags: ['oauth'],
  query: {
    type: 'object',
    properties: {
      response_type: str(undefined, { description: 'The literal `code`.' }), client_id: str(), redirect_uri: str(undefined, { description: 'Registered for the client (exact match).' }),
      state: str(), code_challenge: str(undefined, { description: '43 base64url characters.' }), code_challenge_method: str(undefined, { description: 'The literal `S256`.' }),
    },
    required: [],
    description: 'Checked by the endpoint itself, which answers with RFC 6749 error bodies.',
  },
  responses: { 200: { description: 'The callback URL, also in `Location`.', json: object({ redirect_uri: { type: 'string' } }), headers: { Location: 'The callback URL.' } }, ...oauthErrors, 401: { description: 'Not logged in.', json: errorBody }, 403: { description: 'Not a user.', json: errorBody } },
};

const user: JSONSchema = named('User', object({ username: str(), created_at: dateTime, id: uuid, name: str(), email: str() }));

export const usersList: RouteSchema = {
  summary: 'The users of the caller\'s tenant (needs view_user)',
  tags: ['users'],
  responses: { 200: ok(envelope(array(user))), ...errors(...AUTH_ERRORS) },
};

export const usersMe: RouteSchema = {
  summary: 'The caller (or the profile it acts as)',
  tags: ['users'],
  responses: { 200: ok(envelope(user)), ...errors(...AUTH_ERRORS, 404) },
};

export const usersGet: RouteSchema = {
  summary: 'One user of the tenant (oneself always; others with view_user)',
  tags: ['users'],
  params: { id: { description: 'User id (UUID).', schema: uuid } },
  responses: { 200: ok(envelope(user)), ...errors(...AUTH_ERRORS, 400, 404) },
};

/** Strings are trimmed (the password is not) before the rules apply; null or empty counts as absent. */
const userText = (description: string): JSONSchema => ({ type: ['string', 'null'], description });

export const usersCreate: RouteSchema = {
  summary: 'Create a user (needs add_user)',
  description: 'Every broken rule is reported, keyed by field. Unknown fields are ignored.',
  tags: ['users'],
  body: {
    kind: 'json',
    schema: openObject(
      {
        username: userText('At most 30 characters: letters, digits and @ . + - _; unique across the service.'),
        password: userText('At least 9 characters; not all digits; not a common password; not containing the username, names or e-mail.'),
        email: userText('A valid e-mail address.'),
        first_name: userText('At most 30 characters.'),
        last_name: userText('At most 30 characters.'),
        phone: userText('At most 15 characters: a plus sign followed by digits.'),
      },
      ['username', 'password'],
    ),
  },
  responses: { 201: created(envelope(user)), ...errors(400, ...AUTH_ERRORS, 413, 415) },
};
