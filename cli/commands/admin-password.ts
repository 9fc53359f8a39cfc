import fs from 'node:fs';
import type { Config } from '../../server/config.js';
import { createPrivateFileSync } from '../../server/security/private-files.js';

/**
 * How a generated admin password reaches the operator: printed once on stderr, or, with
 * FIELDOPS_ADMIN_PASSWORD_FILE (services whose stderr goes to persistent logs), written to that
 * file with mode 0600 and only the file named on stderr. Returns the line to print.
 */
export function announceAdminPassword(config: Pick<Config, 'adminPasswordFile'>, password: string): string {
  const file = config.adminPasswordFile;
  if (!file) return `admin password (shown only this once): ${password}`;
  try {
    createPrivateFileSync(file);
    fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  } catch (error) {
    // Never lose the password: an unwritable file falls back to saying it.
    return `admin password (shown only this once; ${file} could not be written: ${(error as NodeJS.ErrnoException).code ?? 'error'}): ${password}`;
  }
  return `admin password written to ${file} (mode 0600; read it, then delete the file)`;
}
