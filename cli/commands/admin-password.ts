import type { BootstrapResult } from '../../server/domain/bootstrap.js';

/**
 * How a generated admin password reaches the operator: printed once on stderr, or, with
 * FIELDOPS_ADMIN_PASSWORD_FILE (services whose stderr goes to persistent logs), only the file it
 * was written to is named (server/admin-password-file.ts writes it during the set-up, and a file
 * that cannot be written fails the set-up: the password is then never printed). Returns the
 * line to print, or null when the password was chosen (FIELDOPS_ADMIN_PASSWORD).
 */
export function announceAdminPassword(bootstrap: Pick<BootstrapResult, 'generatedAdminPassword' | 'passwordKept'>, file: string | null): string | null {
  if (bootstrap.generatedAdminPassword) return `admin password (shown only this once): ${bootstrap.generatedAdminPassword}`;
  if (bootstrap.passwordKept && file) return `admin password written to ${file} (mode 0600; read it, then delete the file)`;
  return null;
}
