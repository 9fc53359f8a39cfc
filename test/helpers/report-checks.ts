/**
 * Structural checks of the lint report formats that CI systems ingest.
 *
 * SARIF: the official SARIF 2.1.0 JSON schema cannot be downloaded here and is not vendored, so
 * this is a hand-written subset of it (OASIS SARIF 2.1.0, §3): every member the formatter emits,
 * with the spec's types, enums and required members, `additionalProperties: false` so that a
 * misspelt member fails, plus the cross-references a schema cannot express (ruleIndex ↔ rules,
 * uriBaseId ↔ originalUriBaseIds).
 *
 * JUnit: XML well-formedness (balanced tags, quoted attributes, escaped text) and the counts.
 */
import { Ajv } from 'ajv';

const message = { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1 } }, additionalProperties: false };
const artifactLocation = { type: 'object', required: ['uri'], properties: { uri: { type: 'string', minLength: 1 }, uriBaseId: { type: 'string' } }, additionalProperties: false };

export const SARIF_SUBSET_SCHEMA = {
  type: 'object',
  required: ['version', 'runs'],
  properties: {
    $schema: { type: 'string', format: 'uri' },
    version: { const: '2.1.0' },
    runs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['tool'],
        properties: {
          tool: {
            type: 'object',
            required: ['driver'],
            properties: {
              driver: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string', minLength: 1 },
                  version: { type: 'string' },
                  semanticVersion: { type: 'string' },
                  rules: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['id'],
                      properties: { id: { type: 'string' }, name: { type: 'string' }, shortDescription: message, properties: { type: 'object' } },
                      additionalProperties: false,
                    },
                  },
                },
                additionalProperties: false,
              },
            },
            additionalProperties: false,
          },
          originalUriBaseIds: { type: 'object', additionalProperties: artifactLocation },
          columnKind: { enum: ['utf16CodeUnits', 'unicodeCodePoints'] },
          invocations: { type: 'array', items: { type: 'object', required: ['executionSuccessful'], properties: { executionSuccessful: { type: 'boolean' } }, additionalProperties: false } },
          results: {
            type: 'array',
            items: {
              type: 'object',
              required: ['message'],
              properties: {
                ruleId: { type: 'string' },
                ruleIndex: { type: 'integer', minimum: -1 },
                level: { enum: ['none', 'note', 'warning', 'error'] },
                message,
                locations: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      physicalLocation: {
                        type: 'object',
                        required: ['artifactLocation'],
                        properties: {
                          artifactLocation,
                          region: {
                            type: 'object',
                            properties: { startLine: { type: 'integer', minimum: 1 }, startColumn: { type: 'integer', minimum: 1 } },
                            additionalProperties: false,
                          },
                        },
                        additionalProperties: false,
                      },
                      logicalLocations: {
                        type: 'array',
                        items: { type: 'object', properties: { fullyQualifiedName: { type: 'string' }, kind: { type: 'string' } }, additionalProperties: false },
                      },
                    },
                    additionalProperties: false,
                  },
                },
                partialFingerprints: { type: 'object', additionalProperties: { type: 'string' } },
              },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

/** Problems of a SARIF log (empty when it passes). */
export function checkSarif(log: any): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(SARIF_SUBSET_SCHEMA);
  const problems = validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  for (const run of log?.runs ?? []) {
    const rules = run.tool?.driver?.rules ?? [];
    for (const [i, result] of (run.results ?? []).entries()) {
      if (result.ruleIndex !== undefined && rules[result.ruleIndex]?.id !== result.ruleId) problems.push(`/results/${i}: ruleIndex does not point at rule ${result.ruleId}`);
      for (const location of result.locations ?? []) {
        const base = location.physicalLocation?.artifactLocation?.uriBaseId;
        if (base && !run.originalUriBaseIds?.[base]) problems.push(`/results/${i}: uriBaseId ${base} is not defined`);
      }
    }
  }
  return problems;
}

/** Problems of an XML text's well-formedness (empty when well formed). */
export function checkXml(text: string): string[] {
  const problems: string[] = [];
  const body = text.replace(/^<\?xml [^?]*\?>\s*/, '');
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w.-]+="[^"<]*")*)\s*(\/?)>|<|&(?!(?:amp|lt|gt|quot|apos|#\d+);)/g;
  let match: RegExpExecArray | null;
  let roots = 0;
  while ((match = token.exec(body))) {
    if (!match[2]) {
      problems.push(`unescaped ${match[0]} at ${match.index}`);
      continue;
    }
    const [, closing, name, , selfClosing] = match;
    if (closing) {
      if (stack.pop() !== name) problems.push(`</${name}> closes nothing open at ${match.index}`);
    } else if (!selfClosing) {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
  }
  if (stack.length) problems.push(`unclosed: ${stack.join(', ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}
