import type { UsageSummary } from '../../../schema/compat/types.js';
import type { UsageDelta } from './usage-deltas.js';

/**
 * Issue 28: what the stored events of each type hold, kept incrementally (table
 * `event_detail_usage`) in the same transaction as every event write, so a summary is a
 * bounded indexed read and never a scan of events.
 */
export interface EventUsageRepository {
  /** summaries() of one type. */
  summary(tenantId: string, eventType: string): Promise<UsageSummary>;
  /**
   * The summaries of the events recorded under each type (zero events: an empty summary), in the
   * order given, all from one snapshot, sharing one budget (responseBudget): per type at most
   * MAX_SUMMARY_FIELDS fields (`fields_complete` false beyond), per field MAX_LISTED_VALUES values
   * (`values_complete` false beyond); fields and values past the budget are left out the same way.
   */
  summaries(tenantId: string, eventTypes: readonly string[], budget?: UsageBudget): Promise<UsageSummary[]>;
  /**
   * Adds the deltas (usage-deltas.ts) in key order and removes the rows that reach 0. The unit of
   * work calls it once per tenant before a commit, with the transaction's summed tally.
   */
  apply(tenantId: string, deltas: readonly UsageDelta[]): Promise<void>;
}

/** Values listed per field, most frequent first (`values_complete` false beyond). */
export const MAX_LISTED_VALUES = 1000;
/** Fields per summary (a type whose events hold more is listed by its first fields by stored name). */
export const MAX_SUMMARY_FIELDS = 1000;
/** Fields and listed values in one answer (one summary or a batch), whatever the number of types. */
export const MAX_RESPONSE_FIELDS = 2000;
export const MAX_RESPONSE_VALUES = 20_000;

/** What is left to list in one answer; readers take from it as they go. */
export interface UsageBudget {
  fields: number;
  values: number;
}

export const responseBudget = (): UsageBudget => ({ fields: MAX_RESPONSE_FIELDS, values: MAX_RESPONSE_VALUES });
