import { type ItemIssue, type ObservationInput, readItems, readObservation, throwItemIssues } from './observation-input.js';

export interface HeartbeatInput {
  index: number;
  /** The whole message as sent: it is stored and echoed verbatim. */
  message: Record<string, unknown>;
}

export interface RadioAgentBatch {
  observations: ObservationInput[];
  heartbeats: HeartbeatInput[];
  /** The body was one object (a single heartbeat is then echoed). */
  single: boolean;
}

/**
 * A radio agent's body: one message or an array of them, each `{message_key: "observation",
 * ...observation}` or `{message_key: "heartbeat", heartbeat: {...}, datasource: {...}}`. All or
 * nothing: any invalid message fails the whole request, every issue listed.
 */
export function readRadioAgentBatch(body: unknown): RadioAgentBatch {
  const { items, pointer } = readItems(body);
  const issues: ItemIssue[] = [];
  const batch: RadioAgentBatch = { observations: [], heartbeats: [], single: !Array.isArray(body) };
  items.forEach((raw, index) => {
    const issue = (field: string, code: string, message: string, hints: string[] = []) =>
      issues.push({ index, code, message: `Item ${index}: ${message}`, hints, pointer: `${pointer(index)}/${field}` });
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      issues.push({ index, code: 'invalid_type', message: `Item ${index}: expected an object.`, hints: [], pointer: pointer(index) });
      return;
    }
    const message = raw as Record<string, unknown>;
    // CONTRACT §11: a message without message_key is an observation.
    if (message.message_key === 'observation' || message.message_key === undefined || message.message_key === null) {
      const observation = readObservation(message, index, pointer(index), issues);
      if (observation) batch.observations.push(observation);
    } else if (message.message_key === 'heartbeat') {
      const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
      if (!isObject(message.heartbeat)) issue('heartbeat', message.heartbeat === undefined ? 'required' : 'invalid_type', 'heartbeat must be an object.');
      else if (message.datasource !== undefined && message.datasource !== null && !isObject(message.datasource)) issue('datasource', 'invalid_type', 'datasource must be an object.');
      else batch.heartbeats.push({ index, message });
    } else {
      issue('message_key', 'invalid_choice', `message_key "${String(message.message_key).slice(0, 40)}" is not known.`, ['Use "observation" or "heartbeat".']);
    }
  });
  throwItemIssues(issues, items.length);
  return batch;
}
