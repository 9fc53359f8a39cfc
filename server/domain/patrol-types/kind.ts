import type { CatalogKind } from '../catalog/kind.js';
import type { PatrolType } from '../model.js';
import { readPatrolTypeBody } from './input.js';

/** The patrol type catalog (CONTRACT §3). */
export const patrolTypeKind: CatalogKind<PatrolType> = {
  catalog: 'patroltypes',
  label: 'patrol type',
  repository: (repos) => repos.patrolTypes,
  permissions: { view: ['view_patroltype', 'view_patrol'], add: 'add_patroltype', change: 'change_patroltype', delete: 'delete_patroltype' },
  readBody: readPatrolTypeBody,
  newItem: (base) => base,
  tracked: [
    { field: 'value', apiName: 'value' },
    { field: 'display', apiName: 'display' },
    { field: 'icon', apiName: 'icon' },
    { field: 'defaultPriority', apiName: 'default_priority' },
    { field: 'isActive', apiName: 'is_active' },
    { field: 'schema', apiName: 'schema' },
    { field: 'ordernum', apiName: 'ordernum' },
  ],
};
