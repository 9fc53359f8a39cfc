/**
 * Expected failures of the client side, each with a hint saying what the user can do. The CLI
 * prints them as `error:`/`hint:` lines (exit 1, or 2 for `usage`); anything else is a bug and
 * is printed with its stack. The `cause` (a system or driver error) is shown only with --debug.
 */
export type FailureKind = 'auth' | 'network' | 'server' | 'usage' | 'input' | 'mirror' | 'permission';

export class ClientFailure extends Error {
  constructor(
    message: string,
    readonly hint: string | undefined,
    readonly kind: FailureKind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClientFailure';
  }
}

export const failure = (kind: FailureKind, message: string, hint?: string, cause?: unknown) => new ClientFailure(message, hint, kind, cause === undefined ? undefined : { cause });
