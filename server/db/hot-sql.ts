import { CLIENT_COLUMNS } from './repositories/clients.js';
import { USER_COLUMNS } from './repositories/users.js';

/** The fixed SQL of the hot reads (`?` placeholders), shared by both dialects. */
export const HOT_SQL = {
  token: `SELECT t.*, ${USER_COLUMNS.map((c) => `u.${c} AS u__${c}`).join(', ')}, ${CLIENT_COLUMNS.map((c) => `c.${c} AS c__${c}`).join(', ')}
  FROM oauth_access_tokens t JOIN users u ON u.id = t.user_id JOIN oauth_clients c ON c.id = t.client_pk
  WHERE t.token_hash = ? LIMIT 1`,
  permissions: 'SELECT codename FROM user_permissions WHERE user_id = ?',
  catalogVersion: 'SELECT version, last_modified FROM catalog_versions WHERE tenant_id = ? AND catalog = ?',
};
