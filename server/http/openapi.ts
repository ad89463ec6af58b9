import { z } from 'zod';
import type { RouteEntry } from './router';

type JsonSchema = Record<string, unknown>;

/** Converts a zod schema; named schemas (`.meta({ id })`) move to components and are referenced. */
function converter(components: Record<string, JsonSchema>) {
  return (schema: z.ZodType, io: 'input' | 'output') => {
    const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
    const json = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const { $defs, $schema: _dialect, ...rest } = json;
    Object.assign(components, $defs);
    return rest;
  };
}

const errorSchema = {
  type: 'object',
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          long_message: { type: 'string' },
          meta: { type: 'object' },
        },
        required: ['code', 'message', 'meta'],
      },
    },
    trace_id: { type: 'string' },
  },
  required: ['errors', 'trace_id'],
};

/** An OpenAPI 3.1 document generated from a surface's route table and its zod schemas. */
export function buildOpenApi<G>(opts: {
  title: string;
  version: string;
  serverUrl: string;
  routes: RouteEntry<G, never>[];
  describeGuard(guard: G): { security: boolean; scope?: string };
}) {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = { Error: errorSchema };
  const toSchema = converter(schemas);
  for (const r of opts.routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const ep = r.endpoint;
    const parameters: unknown[] = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (ep.query) {
      const q = toSchema(ep.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    const guard = opts.describeGuard(r.guard);
    const operation: Record<string, unknown> = {
      summary: ep.summary,
      operationId: `${r.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
      parameters,
      responses: {
        [String(ep.status ?? 200)]: {
          description: 'Success',
          content: { 'application/json': { schema: toSchema(ep.response, 'output') } },
        },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
    if (guard.security) operation.security = [{ secretKey: [] }];
    if (guard.scope) operation['x-required-scope'] = guard.scope;
    if (ep.body) {
      operation.requestBody = { required: false, content: { 'application/json': { schema: toSchema(ep.body, 'input') } } };
    }
    (paths[path] ??= {})[r.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version },
    servers: [{ url: opts.serverUrl }],
    paths,
    components: {
      schemas,
      securitySchemes: { secretKey: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_…' } },
    },
  };
}
