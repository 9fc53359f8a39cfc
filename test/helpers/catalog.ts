import type { TestServer } from './server.js';
import { jsonBody } from './server.js';

export const TYPES = '/api/v1.0/activity/patrols/types';

/** A small valid v2 document with one text field (and a choice field when `choiceUrl` is given). */
export function sampleSchema(field = 'notes', choiceUrl?: string) {
  const properties: Record<string, unknown> = { [field]: { type: 'string', title: 'Notes', maxLength: 500 } };
  const fields: Record<string, unknown> = { [field]: { type: 'TEXT', inputType: 'LONG_TEXT', parent: 'main' } };
  const leftColumn: unknown[] = [{ name: field, type: 'field' }];
  if (choiceUrl) {
    properties.species = { type: 'string', title: 'Species', anyOf: [{ $ref: choiceUrl }] };
    fields.species = { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 'main', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['species'] } };
    leftColumn.push({ name: 'species', type: 'field' });
  }
  return {
    json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties, required: [], additionalProperties: false },
    ui: { fields, sections: { main: { label: 'Main', columns: 1, isActive: true, leftColumn, rightColumn: [] } }, order: ['main'], headers: {} },
  };
}

export async function createType(s: TestServer, token: string, body: Record<string, unknown>) {
  const response = await s.json(TYPES, jsonBody(body, { token }));
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; value: string; updated_at: string; ordernum: number | null };
}

export function send(method: string, body: unknown, token: string) {
  return jsonBody(body, { token, method });
}
