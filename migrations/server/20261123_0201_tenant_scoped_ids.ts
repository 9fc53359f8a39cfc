import type { Knex } from 'knex';

/**
 * Client-supplied ids (patrols, segments, events) are unique per tenant, not across the service:
 * primary key `(tenant_id, id)`, and the tables that point at them carry the tenant in their
 * foreign keys. Before, reusing an id that another tenant had used was a 409: an existence
 * oracle, and a way to squat ids. Now such an id simply creates (issue 13).
 *
 * Both dialects rebuild the tables the same way (new tables, copy, drop, rename, indexes), so
 * the result is identical; SQLite cannot change a primary key in place. Foreign keys of the new
 * tables name the new parents, which the renames then carry over. `down` restores global keys;
 * it fails if two tenants share an id by then.
 */

type Scope = 'tenant' | 'global';

interface TableSpec {
  name: string;
  /** Columns and keys; `ref(parent)` is the parent's name while both generations exist. */
  define(t: Knex.CreateTableBuilder, scope: Scope, ref: (parent: string) => string): void;
  indexes(scope: Scope): Array<{ columns: string[]; unique?: boolean }>;
  /** Column list copied (when the two generations differ, `copy` says how). */
  copy?(knex: Knex, scope: Scope, from: string, to: string): Promise<void>;
}

const SCOPED = ['events', 'patrols', 'patrol_segments'];

/** A foreign key on `column` to one of the rebuilt parents: with the tenant when scoped. */
function parentKey(t: Knex.CreateTableBuilder, table: string, column: string, parent: string, scope: Scope, ref: (parent: string) => string): void {
  const columns = scope === 'tenant' ? ['tenant_id', column] : [column];
  t.foreign(columns, `${table}_${columns.join('_')}_foreign`).references(scope === 'tenant' ? ['tenant_id', 'id'] : ['id']).inTable(ref(parent)).onDelete('CASCADE');
}

/**
 * Primary key names differ between the generations (PostgreSQL names the key's index, and the
 * two generations exist side by side while rebuilding); `global` restores the original names.
 */
const pkName = (table: string, scope: Scope) => (scope === 'tenant' ? `${table}_tenant_pkey` : `${table}_pkey`);

function primaryId(t: Knex.CreateTableBuilder, table: string, scope: Scope): void {
  t.primary(scope === 'tenant' && SCOPED.includes(table) ? ['tenant_id', 'id'] : ['id'], pkName(table, scope));
}

const tenantColumn = (t: Knex.CreateTableBuilder) => t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
const byPatrol = (scope: Scope) => (scope === 'tenant' ? ['tenant_id', 'patrol_id'] : ['patrol_id']);

const TABLES: TableSpec[] = [
  {
    name: 'events',
    define(t, scope) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.string('event_type', 50).notNullable();
      t.string('title', 255).notNullable().defaultTo('');
      t.bigInteger('time').notNullable();
      t.double('latitude').nullable();
      t.double('longitude').nullable();
      t.integer('priority').notNullable().defaultTo(0);
      t.string('state', 10).notNullable().defaultTo('new');
      t.text('event_details').notNullable();
      t.uuid('created_by_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
      t.uuid('created_by_client_id').nullable().references('id').inTable('oauth_clients').onDelete('SET NULL');
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      primaryId(t, 'events', scope);
    },
    indexes: () => [{ columns: ['tenant_id', 'time'] }, { columns: ['tenant_id', 'event_type'] }],
  },
  {
    name: 'event_files',
    define(t, scope, ref) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.uuid('event_id').notNullable();
      t.string('sha256', 64).notNullable();
      t.string('path', 255).notNullable();
      t.bigInteger('size').notNullable();
      t.string('content_type', 100).notNullable();
      t.string('filename', 255).notNullable().defaultTo('');
      t.bigInteger('created_at').notNullable();
      primaryId(t, 'event_files', scope);
      parentKey(t, 'event_files', 'event_id', 'events', scope, ref);
    },
    indexes: (scope) => [{ columns: scope === 'tenant' ? ['tenant_id', 'event_id'] : ['event_id'] }, { columns: ['tenant_id', 'sha256'] }],
  },
  {
    name: 'camera_trap_images',
    define(t, scope, ref) {
      tenantColumn(t);
      t.string('sha256', 64).notNullable();
      t.uuid('event_id').notNullable();
      t.uuid('provider_id').notNullable().references('id').inTable('sensor_providers').onDelete('CASCADE');
      t.bigInteger('created_at').notNullable();
      t.primary(['tenant_id', 'sha256'], pkName('camera_trap_images', scope));
      parentKey(t, 'camera_trap_images', 'event_id', 'events', scope, ref);
    },
    indexes: () => [],
  },
  {
    name: 'patrols',
    define(t, scope) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.integer('serial_number').notNullable();
      t.string('title', 255).nullable();
      t.text('objective').nullable();
      t.integer('priority').notNullable().defaultTo(0);
      t.string('state', 10).notNullable().defaultTo('open');
      t.integer('segment_count').notNullable().defaultTo(0);
      t.bigInteger('window_start').nullable();
      t.bigInteger('window_end').nullable();
      t.boolean('open_ended').notNullable().defaultTo(false);
      t.bigInteger('actual_start').nullable();
      t.bigInteger('scheduled_start').nullable();
      t.bigInteger('all_ended_at').nullable();
      t.uuid('created_by_user_id').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      primaryId(t, 'patrols', scope);
    },
    indexes: () => [{ columns: ['tenant_id', 'serial_number'], unique: true }, { columns: ['tenant_id', 'state', 'all_ended_at'] }, { columns: ['tenant_id', 'window_start'] }],
  },
  {
    name: 'patrol_segments',
    define(t, scope, ref) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.uuid('patrol_id').notNullable();
      t.uuid('patrol_type_id').nullable().references('id').inTable('patrol_types').onDelete('SET NULL');
      t.string('leader_type', 30).nullable();
      t.uuid('leader_id').nullable();
      for (const column of ['scheduled_start', 'scheduled_end', 'start_time', 'end_time']) t.bigInteger(column).nullable();
      for (const column of ['start_latitude', 'start_longitude', 'end_latitude', 'end_longitude']) t.double(column).nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      primaryId(t, 'patrol_segments', scope);
      parentKey(t, 'patrol_segments', 'patrol_id', 'patrols', scope, ref);
    },
    indexes: (scope) => [{ columns: byPatrol(scope) }, { columns: ['tenant_id', 'leader_id'] }],
  },
  {
    name: 'patrol_notes',
    define(t, scope, ref) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.uuid('patrol_id').notNullable();
      t.text('text').notNullable();
      t.uuid('created_by_user_id').nullable();
      t.string('created_by_username', 30).nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      primaryId(t, 'patrol_notes', scope);
      parentKey(t, 'patrol_notes', 'patrol_id', 'patrols', scope, ref);
    },
    indexes: (scope) => [{ columns: byPatrol(scope) }],
  },
  {
    name: 'patrol_files',
    define(t, scope, ref) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.uuid('patrol_id').notNullable();
      t.string('sha256', 64).notNullable();
      t.string('storage_path', 200).notNullable();
      t.string('filename', 255).notNullable();
      t.string('content_type', 100).notNullable();
      t.bigInteger('size').notNullable();
      t.text('comment').notNullable().defaultTo('');
      t.integer('ordernum').nullable();
      t.uuid('created_by_user_id').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      primaryId(t, 'patrol_files', scope);
      parentKey(t, 'patrol_files', 'patrol_id', 'patrols', scope, ref);
    },
    indexes: (scope) => [{ columns: byPatrol(scope) }],
  },
  {
    name: 'patrol_updates',
    define(t, scope, ref) {
      t.uuid('id').notNullable();
      tenantColumn(t);
      t.uuid('patrol_id').notNullable();
      t.string('type', 40).notNullable();
      t.text('message').notNullable();
      t.uuid('user_id').nullable();
      t.string('username', 30).nullable();
      t.bigInteger('time').notNullable();
      primaryId(t, 'patrol_updates', scope);
      parentKey(t, 'patrol_updates', 'patrol_id', 'patrols', scope, ref);
    },
    indexes: (scope) => [{ columns: [...byPatrol(scope), 'time'] }],
  },
  {
    name: 'segment_events',
    define(t, scope, ref) {
      if (scope === 'tenant') tenantColumn(t);
      t.uuid('segment_id').notNullable();
      t.uuid('event_id').notNullable();
      t.primary(scope === 'tenant' ? ['tenant_id', 'segment_id', 'event_id'] : ['segment_id', 'event_id'], pkName('segment_events', scope));
      const columns = (column: string) => (scope === 'tenant' ? ['tenant_id', column] : [column]);
      t.foreign(columns('segment_id'), 'segment_events_segment_foreign').references(scope === 'tenant' ? ['tenant_id', 'id'] : ['id']).inTable(ref('patrol_segments')).onDelete('CASCADE');
      t.foreign(columns('event_id'), 'segment_events_event_foreign').references(scope === 'tenant' ? ['tenant_id', 'id'] : ['id']).inTable(ref('events')).onDelete('CASCADE');
    },
    indexes: (scope) => [{ columns: scope === 'tenant' ? ['tenant_id', 'event_id'] : ['event_id'] }],
    async copy(knex, scope, from, to) {
      if (scope === 'tenant') {
        await knex.raw(`INSERT INTO ${to} (tenant_id, segment_id, event_id) SELECT s.tenant_id, se.segment_id, se.event_id FROM ${from} se JOIN patrol_segments s ON s.id = se.segment_id`);
      } else {
        await knex.raw(`INSERT INTO ${to} (segment_id, event_id) SELECT segment_id, event_id FROM ${from}`);
      }
    },
  },
];

async function rebuild(knex: Knex, scope: Scope): Promise<void> {
  const next = (name: string) => `${name}__next`;
  // Parents first: a child's foreign keys name the parent's next generation.
  for (const spec of TABLES) await knex.schema.createTable(next(spec.name), (t) => spec.define(t, scope, next));
  for (const spec of TABLES) {
    if (spec.copy) {
      await spec.copy(knex, scope, spec.name, next(spec.name));
    } else {
      const columns = Object.keys(await knex(spec.name).columnInfo()).map((column) => `"${column}"`).join(', ');
      await knex.raw(`INSERT INTO ${next(spec.name)} (${columns}) SELECT ${columns} FROM ${spec.name}`);
    }
  }
  // Children first, so that no drop cascades into a table still holding rows.
  for (const spec of [...TABLES].reverse()) await knex.schema.dropTable(spec.name);
  for (const spec of TABLES) {
    await knex.schema.renameTable(next(spec.name), spec.name);
    await knex.schema.alterTable(spec.name, (t) => {
      for (const index of spec.indexes(scope)) {
        if (index.unique) t.unique(index.columns);
        else t.index(index.columns);
      }
    });
  }
}

export async function up(knex: Knex): Promise<void> {
  await rebuild(knex, 'tenant');
}

export async function down(knex: Knex): Promise<void> {
  await rebuild(knex, 'global');
}
