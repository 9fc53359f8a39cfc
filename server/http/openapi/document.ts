import type { Route } from '../routes/types.js';
import { type BodySpec, COMPONENT_NAME, type JSONSchema, type ResponseSpec, type RouteSchema } from '../schemas/types.js';
import { INTRODUCTION, SECURITY_SCHEMES, TAGS } from './introduction.js';

/**
 * Builds the OpenAPI 3.1 document of a route table: one operation per (path, method), every
 * path template from `:name` to `{name}`, parameters, bodies and responses from the route's
 * schemas (the same objects the validator compiles). `x-` keywords of the schemas are
 * validator hints and are left out of the document.
 */
export function buildOpenApiDocument(routes: readonly Route[], version: string, variant: DocumentVariant = {}): Record<string, unknown> {
  const components: Components = {};
  const clean = (schema: unknown) => cleanSchema(schema, components);
  const paths: Record<string, Record<string, unknown>> = {};
  const usedTags = new Set<string>();
  for (const route of routes) {
    route.paths.forEach((path, i) => {
      const template = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
      const operation = operationOf(variant.responsesOf ? { ...route, schema: { ...route.schema, responses: variant.responsesOf(route) } } : route, template, i, clean);
      (paths[template] ??= {})[route.method.toLowerCase()] = operation;
      for (const tag of route.schema.tags) usedTags.add(tag);
    });
  }
  return {
    openapi: '3.1.0',
    info: { title: variant.title ?? 'fieldops API', version, description: variant.introduction ?? INTRODUCTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/', description: 'This server.' }],
    tags: TAGS.filter((tag) => usedTags.has(tag.name)),
    paths,
    components: { schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))), securitySchemes: SECURITY_SCHEMES },
  };
}

/** Another rendering of the same table (the `earthranger` response profile). */
export interface DocumentVariant {
  title?: string;
  introduction?: string;
  responsesOf?: (route: Route) => Record<number, ResponseSpec>;
}

/** Named schemas met while building (see `named()`), emitted once under components/schemas. */
type Components = Record<string, JSONSchema>;
type Clean = (schema: unknown) => JSONSchema;

function operationOf(route: Route, template: string, index: number, clean: Clean): Record<string, unknown> {
  const schema = route.schema;
  const operation: Record<string, unknown> = {
    operationId: index === 0 ? route.name : `${route.name}-alias${index}`,
    summary: schema.summary,
    ...(schema.description || index > 0 ? { description: [schema.description, index > 0 ? `Also at \`${route.paths[0]}\`.` : ''].filter(Boolean).join('\n\n') } : {}),
    tags: schema.tags,
  };
  const parameters = [...pathParameters(schema, template, clean), ...queryParameters(schema, clean)];
  if (parameters.length) operation.parameters = parameters;
  if (schema.body) operation.requestBody = requestBody(schema.body, clean);
  operation.responses = responses(schema.responses, clean);
  operation.security = security(schema.security ?? (route.authenticate ? 'credentials' : 'public'));
  return operation;
}

function pathParameters(schema: RouteSchema, template: string, clean: Clean) {
  return [...template.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const spec = schema.params?.[name!];
    return { name, in: 'path', required: true, description: spec?.description ?? name, schema: clean(spec?.schema ?? { type: 'string' }) };
  });
}

function queryParameters(schema: RouteSchema, clean: Clean) {
  const query = schema.query;
  if (!query) return [];
  const required = new Set((query.required as string[] | undefined) ?? []);
  return Object.entries((query.properties ?? {}) as Record<string, JSONSchema>).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description ? { description } : {}),
      ...(rest.type === 'array' ? { style: 'form', explode: true } : {}),
      schema: clean(rest),
    };
  });
}

const MEDIA: Record<BodySpec['kind'], string[]> = {
  json: ['application/json'],
  form: ['application/x-www-form-urlencoded', 'multipart/form-data'],
  multipart: ['multipart/form-data'],
};

function requestBody(body: BodySpec, clean: Clean) {
  const content = Object.fromEntries(MEDIA[body.kind].map((type) => [type, { schema: clean(body.schema) }]));
  return { required: true, ...(body.description ? { description: body.description } : {}), content };
}

function responses(specs: Record<number, ResponseSpec>, clean: Clean) {
  const conditional = 304 in specs;
  return Object.fromEntries(
    Object.entries(specs).map(([status, spec]) => {
      const response: Record<string, unknown> = { description: spec.description };
      const headers: Record<string, unknown> = {};
      for (const [name, description] of Object.entries(spec.headers ?? {})) headers[name] = { description, schema: { type: 'string' } };
      if (conditional && (status === '200' || status === '304')) headers.ETag = { description: 'Strong validator; send it back in If-None-Match.', schema: { type: 'string' } };
      if (Object.keys(headers).length) response.headers = headers;
      if (spec.json) response.content = { 'application/json': { schema: clean(spec.json) } };
      else if (spec.mediaType) response.content = { [spec.mediaType]: { schema: { type: 'string', ...(spec.mediaType.startsWith('text/') ? {} : { contentMediaType: spec.mediaType }) } } };
      return [status, response];
    }),
  );
}

function security(kind: NonNullable<RouteSchema['security']>) {
  if (kind === 'public') return [];
  const caller = [{ bearerAuth: [] }, { clientId: [] }, { clientId: [], clientSecret: [] }, { clientBasic: [] }];
  return kind === 'metrics' ? [{ metricsToken: [] }, ...caller] : caller;
}

/** A copy without the validator's `x-` hints, named schemas replaced by references. */
function cleanSchema(schema: unknown, components: Components): JSONSchema {
  if (Array.isArray(schema)) return schema.map((item) => cleanSchema(item, components)) as unknown as JSONSchema;
  if (!schema || typeof schema !== 'object') return schema as JSONSchema;
  const copy = () => Object.fromEntries(Object.entries(schema).filter(([key]) => !key.startsWith('x-')).map(([key, value]) => [key, cleanSchema(value, components)]));
  const name = (schema as { [COMPONENT_NAME]?: string })[COMPONENT_NAME];
  if (!name) return copy();
  if (components[name] === undefined) {
    components[name] = {};
    components[name] = copy();
  }
  return { $ref: `#/components/schemas/${name}` };
}
