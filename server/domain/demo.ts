import fs from 'node:fs';
import path from 'node:path';
import type { Services } from '../app.js';
import { CLI_CLIENT_ID, DEFAULT_TENANT } from './bootstrap.js';
import type { AdminService } from './admin.js';
import type { RequestContext } from './context.js';

interface DemoUser {
  username: string;
  password: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
  permissions?: string[];
  /** Subject groups whose members the user sees (trackedby lists the patrol leaders among them). */
  subject_groups?: string[];
}

interface DemoSubject {
  name: string;
  subject_type: string;
  subject_subtype: string;
  groups: Array<{ name: string; patrol_leaders: boolean }>;
}

interface DemoPatrol {
  title: string;
  objective: string;
  priority: number;
  segments: Array<{ patrol_type: string; leader: string; scheduled: [number, number]; actual?: [number, number | null]; start?: [number, number]; end?: [number, number] }>;
  notes?: string[];
}

/** A patrol body from a fixture whose times are hours from `now` and whose leaders are names. */
function demoPatrolBody(patrol: DemoPatrol, leaders: Array<{ id: string; name: string }>, now: number) {
  const at = (hours: number | null | undefined) => (hours === null || hours === undefined ? null : new Date(now + hours * 3600_000).toISOString());
  const place = (point?: [number, number]) => (point ? { latitude: point[0], longitude: point[1] } : null);
  return {
    title: patrol.title,
    objective: patrol.objective,
    priority: patrol.priority,
    patrol_segments: patrol.segments.map((segment) => {
      const leader = leaders.find((candidate) => candidate.name === segment.leader);
      return {
        patrol_type: segment.patrol_type,
        leader: leader ? { content_type: 'observations.subject', id: leader.id } : null,
        scheduled_start: at(segment.scheduled[0]),
        scheduled_end: at(segment.scheduled[1]),
        time_range: { start_time: at(segment.actual?.[0]), end_time: at(segment.actual?.[1]) },
        start_location: place(segment.start),
        end_location: place(segment.end),
      };
    }),
    notes: (patrol.notes ?? []).map((text) => ({ text })),
  };
}

/**
 * Loads the demo data in `fixtures/demo/` into the default tenant, once: only while that
 * tenant holds nothing but its superuser. Everything goes through the services, as the
 * superuser, so the demo data obeys every rule real data does. Returns a line per thing loaded.
 */
export async function loadDemoData(deps: { services: Services; admin: AdminService }, fixturesDir: string): Promise<string[]> {
  const { store } = deps.services;
  const tenant = await store.repos.tenants.findByName(DEFAULT_TENANT);
  if (!tenant) return [];
  const users = await store.repos.users.listInTenant(tenant.id);
  const superuser = users.find((user) => user.isSuperuser);
  const client = await store.repos.clients.findByClientId(CLI_CLIENT_ID);
  if (!superuser || !client || users.some((user) => !user.isSuperuser)) return [];
  const read = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(fixturesDir, name), 'utf8')) as T;
  const ctx: RequestContext = {
    requestId: 'demo-loader',
    log: deps.services.logger,
    principal: { kind: 'user', tenantId: tenant.id, user: superuser, profile: null, client, permissions: new Set(), isSuperuser: true },
  };
  const loaded: string[] = [];

  const demoUsers = read<{ users: DemoUser[] }>('users.json').users;
  const created = new Map<string, string>();
  for (const user of demoUsers) {
    const { id } = await deps.admin.createUser({ tenant: DEFAULT_TENANT, username: user.username, password: user.password, firstName: user.first_name, lastName: user.last_name, email: user.email, phone: user.phone, permissions: user.permissions });
    created.set(user.username, id);
    loaded.push(`demo user ${user.username} (password ${user.password})`);
  }
  const choices = read<unknown[]>('choices.json');
  for (const choice of choices) await deps.services.choices.create(ctx, choice);
  loaded.push(`${choices.length} choices`);
  const subjects = read<{ subjects: DemoSubject[] }>('subjects.json').subjects;
  for (const subject of subjects) {
    await deps.services.subjects.create(tenant.id, {
      name: subject.name,
      subjectType: subject.subject_type,
      subjectSubtype: subject.subject_subtype,
      groups: subject.groups.map((group) => ({ name: group.name, patrolLeaders: group.patrol_leaders })),
    });
  }
  loaded.push(`${subjects.length} subjects`);
  for (const user of demoUsers) {
    for (const group of user.subject_groups ?? []) {
      // Through the service: one transaction (a group a subject names exists already, with its patrol-leader flag).
      await deps.services.subjects.allowUserToViewGroup(tenant.id, created.get(user.username)!, group);
    }
  }
  const patrolTypes = read<unknown[]>('patrol-types.json');
  for (const type of patrolTypes) await deps.services.patrolTypes.create(ctx, type);
  loaded.push(`${patrolTypes.length} patrol types`);
  const eventTypes = read<{ categories: unknown[]; event_types: unknown[] }>('event-types.json');
  for (const category of eventTypes.categories) await deps.services.eventCategories.create(ctx, category);
  for (const type of eventTypes.event_types) await deps.services.eventTypes.create(ctx, type);
  const v1Files = fs.readdirSync(fixturesDir).filter((name) => name.endsWith('.v1.txt')).sort();
  for (const file of v1Files) {
    const value = file.replace(/\.v1\.txt$/, '');
    await deps.services.eventTypesV1.create(ctx, { value, display: value.replace(/_/g, ' '), schema: fs.readFileSync(path.join(fixturesDir, file), 'utf8') });
  }
  loaded.push(`${eventTypes.event_types.length} v2 and ${v1Files.length} v1 event types`);
  const patrols = read<{ patrols: DemoPatrol[] }>('patrols.json').patrols;
  const leaders = await store.repos.subjects.patrolLeaders(tenant.id, null);
  for (const patrol of patrols) await deps.services.patrols.create(ctx, demoPatrolBody(patrol, leaders, Date.now()));
  loaded.push(`${patrols.length} patrols`);
  return loaded;
}
