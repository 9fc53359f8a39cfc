import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_TENANT } from './bootstrap.js';
import type { AdminService } from './admin.js';
import type { Store } from './ports.js';

interface DemoUser {
  username: string;
  password: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
  permissions?: string[];
}

/**
 * Loads the demo data in `fixtures/demo/` into the default tenant, once: only while that
 * tenant holds nothing but its superuser. Returns a line per thing loaded.
 */
export async function loadDemoData(deps: { store: Store; admin: AdminService }, fixturesDir: string): Promise<string[]> {
  const tenant = await deps.store.repos.tenants.findByName(DEFAULT_TENANT);
  if (!tenant) return [];
  const users = await deps.store.repos.users.listInTenant(tenant.id);
  if (users.some((user) => !user.isSuperuser)) return [];
  const loaded: string[] = [];
  const file = JSON.parse(fs.readFileSync(path.join(fixturesDir, 'users.json'), 'utf8')) as { users: DemoUser[] };
  for (const user of file.users) {
    await deps.admin.createUser({
      tenant: DEFAULT_TENANT,
      username: user.username,
      password: user.password,
      firstName: user.first_name,
      lastName: user.last_name,
      email: user.email,
      phone: user.phone,
      permissions: user.permissions,
    });
    loaded.push(`demo user ${user.username} (password ${user.password})`);
  }
  return loaded;
}
