/**
 * The domain's errors. Services throw these; one HTTP middleware maps them to a status and to
 * the contract's single error body. Each carries a stable machine `code`.
 */
export interface FieldIssue {
  code: string;
  message: string;
  hints: string[];
  pointer?: string;
  /** Schema issues also say which of the four categories they belong to (CONTRACT §4). */
  category?: string;
}

export type FieldErrors = Record<string, FieldIssue[]>;

export abstract class DomainError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  /** When set, the answer carries `Retry-After` (429, 503). */
  readonly retryAfterSeconds?: number;
}

/** Bad input: 400, optionally with per-field issues keyed by field name. */
export class InputError extends DomainError {
  readonly code = 'invalid_input';
  readonly status = 400;
  constructor(
    message: string,
    readonly fields: FieldErrors = {},
  ) {
    super(message);
  }

  static field(field: string, code: string, message: string, hints: string[] = []): InputError {
    return new InputError(message, { [field]: [{ code, message, hints }] });
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
  readonly status = 404;
  constructor(message = 'Not found.') {
    super(message);
  }
}

export class ConflictError extends DomainError {
  readonly code = 'conflict';
  readonly status = 409;
}

/** Authenticated, but without the permission (403). */
export class NotAllowedError extends DomainError {
  readonly code = 'permission_denied';
  readonly status = 403;
  constructor(message = 'You do not have permission to perform this action.') {
    super(message);
  }
}

/** No or invalid credentials (401 with WWW-Authenticate). */
export class AuthenticationError extends DomainError {
  readonly code = 'not_authenticated';
  readonly status = 401;
  constructor(
    message = 'Authentication credentials were not provided.',
    readonly bearerError?: 'invalid_token',
  ) {
    super(message);
  }
}

/** A write's `If-Match` names a version that is no longer current (412). */
export class PreconditionFailedError extends DomainError {
  readonly code = 'precondition_failed';
  readonly status = 412;
}

/** Issue 28: a write that requires `If-Match` was sent without it (428, RFC 6585 §3). */
export class PreconditionRequiredError extends DomainError {
  readonly code = 'precondition_required';
  readonly status = 428;
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'unsupported_media_type';
  readonly status = 415;
}

/** The database is unreachable or overloaded: 503, retry later. */
export class UnavailableError extends DomainError {
  readonly code = 'service_unavailable';
  readonly status = 503;
  constructor(
    message: string,
    override readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Too many attempts (a throttle): 429 with Retry-After. */
export class TooManyRequestsError extends DomainError {
  readonly code = 'too_many_requests';
  readonly status = 429;
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * OAuth endpoint errors use RFC 6749 §5.2 bodies (`error`, `error_description`) rather than the
 * contract's general error body.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}
