import { API_PROFILES, type ApiProfile, type GrantType, type OAuthClient } from '../../domain/model.js';
import type { ClientRepository } from '../../domain/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis } from '../time.js';

export interface ClientRow {
  id: string;
  tenant_id: string | null;
  client_id: string;
  name: string;
  secret_hash: string | null;
  grant_types: string;
  redirect_uris: string;
  api_profile: string | null;
  created_at: number | string;
}

export const CLIENT_COLUMNS = ['id', 'tenant_id', 'client_id', 'name', 'secret_hash', 'grant_types', 'redirect_uris', 'api_profile', 'created_at'] as const;

export function toClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    clientId: row.client_id,
    name: row.name,
    secretHash: row.secret_hash,
    grantTypes: parseJsonColumn<GrantType[]>(row.grant_types, []),
    redirectUris: parseJsonColumn<string[]>(row.redirect_uris, []),
    profile: API_PROFILES.includes(row.api_profile as ApiProfile) ? (row.api_profile as ApiProfile) : null,
    createdAt: fromDbMillis(row.created_at),
  };
}

export class KnexClientRepository implements ClientRepository {
  constructor(private readonly db: Executor) {}

  async findByClientId(clientId: string): Promise<OAuthClient | null> {
    const row = await this.db<ClientRow>('oauth_clients').where({ client_id: clientId }).first();
    return row ? toClient(row) : null;
  }

  async findById(clientPk: string): Promise<OAuthClient | null> {
    const row = await this.db<ClientRow>('oauth_clients').where({ id: clientPk }).first();
    return row ? toClient(row) : null;
  }

  async insert(client: OAuthClient): Promise<void> {
    await this.db('oauth_clients').insert({
      id: client.id,
      tenant_id: client.tenantId,
      client_id: client.clientId,
      name: client.name,
      secret_hash: client.secretHash,
      grant_types: jsonColumn(client.grantTypes),
      redirect_uris: jsonColumn(client.redirectUris),
      api_profile: client.profile,
      created_at: client.createdAt,
    });
  }

  async setProfile(clientPk: string, profile: ApiProfile | null): Promise<void> {
    await this.db('oauth_clients').where({ id: clientPk }).update({ api_profile: profile });
  }

  async permissionsOf(clientPk: string): Promise<string[]> {
    const rows = await this.db('client_permissions').select('codename').where({ client_pk: clientPk });
    return rows.map((row: { codename: string }) => row.codename);
  }

  async grantPermissions(clientPk: string, codenames: readonly string[]): Promise<void> {
    if (codenames.length === 0) return;
    await this.db('client_permissions')
      .insert(codenames.map((codename) => ({ client_pk: clientPk, codename })))
      .onConflict(['client_pk', 'codename'])
      .ignore();
  }
}
