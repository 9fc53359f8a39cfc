/** Query options of catalog reads, already parsed and normalised by the HTTP layer. */
export interface CatalogListQuery {
  includeInactive: boolean;
  includeSchema: boolean;
  updatedSince: number | null;
  /** Each item says whether records use it (CatalogKind.usage; the original's `has_events_assigned`). */
  withUsage?: boolean;
}

export interface CatalogDetailQuery {
  includeInactive: boolean;
  includeSchema: boolean;
  withUsage?: boolean;
}

/** The normalised spelling of a list query, for ETags: equivalent spellings give one key. */
export function listQueryKey(query: CatalogListQuery): string {
  return `ii=${Number(query.includeInactive)}&is=${Number(query.includeSchema)}&us=${query.updatedSince ?? ''}`;
}

export function detailQueryKey(query: CatalogDetailQuery): string {
  return `ii=${Number(query.includeInactive)}&is=${Number(query.includeSchema)}`;
}
