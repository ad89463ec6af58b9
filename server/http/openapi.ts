import { z } from 'zod';
import type { RouteEntry } from './router';

type JsonSchema = Record<string, unknown>;

/**
 * Strings the server stores: no U+0000 and no unpaired surrogate (see validate.ts, which
 * refuses them in every request field and metadata key). ECMA-262 with the `u` flag.
 */
const STORABLE_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';
/** The same, with at least one character that is not white space: a trimmed string that must not end up empty. */
const NON_BLANK_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*[^\\s\\u0000\\uD800-\\uDFFF][^\\u0000\\uD800-\\uDFFF]*$';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
/** Users and organizations imported from Clerk keep Clerk's ids: 27 base62 characters after the prefix. */
const ULID_OR_CLERK = `(?:${ULID}|[0-9A-Za-z]{27})`;
const SLUG = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
/**
 * The id a path parameter takes, by the path segment before it (`/users/{id}` → `user_…`).
 * Organizations are also addressed by slug.
 */
const PATH_ID_PATTERNS: Record<string, string> = {
  users: `^user_${ULID_OR_CLERK}$`,
  memberships: `^user_${ULID_OR_CLERK}$`,
  organizations: `^(?:org_${ULID_OR_CLERK}|${SLUG})$`,
  invitations: `^orginv_${ULID}$`,
  domains: `^orgdmn_${ULID}$`,
  roles: `^role_${ULID}$`,
  permissions: `^perm_${ULID}$`,
  webhook_endpoints: `^whep_${ULID}$`,
  deliveries: `^msg_${ULID}$`,
  sessions: `^sess_${ULID}$`,
  actor_tokens: `^act_${ULID}$`,
  sign_in_tokens: `^sit_${ULID}$`,
  emails: `^email_${ULID}$`,
  sms: `^sms_${ULID}$`,
  waitlist_entries: `^wle_${ULID}$`,
};

function pathParamSchema(path: string, name: string): JsonSchema {
  const segments = path.split('/');
  const before = segments[segments.indexOf(`:${name}`) - 1] ?? '';
  const pattern = PATH_ID_PATTERNS[before];
  return pattern ? { type: 'string', pattern } : { type: 'string', minLength: 1, pattern: STORABLE_PATTERN };
}

type Def = { type: string; checks?: { _zod: { def: { check: string; tx?: (v: string) => string } } }[]; in?: z.ZodType; out?: z.ZodType };
const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

/** Whether a zod string trims its input before its length checks. */
const trims = (def: Def) => (def.checks ?? []).some((c) => c._zod.def.check === 'overwrite' && c._zod.def.tx?.(' a ') === 'a');

const isEmpty = (v: unknown) => typeof v === 'object' && v !== null && Object.keys(v).length === 0;

/** Adds `pattern` to a string schema, next to those it may already have (zod calls an override more than once). */
function addPattern(json: JsonSchema, pattern: string) {
  const extra = (json.allOf as JsonSchema[] | undefined) ?? [];
  const present = [json.pattern, ...extra.map((x) => x.pattern)];
  if (present.includes(pattern) || (pattern === STORABLE_PATTERN && present.includes(NON_BLANK_PATTERN))) return;
  if (json.pattern === undefined || json.pattern === STORABLE_PATTERN) json.pattern = pattern;
  else json.allOf = [...extra, { pattern }];
}

/**
 * Request schemas state what the server checks beyond zod's own JSON Schema: the output
 * side of a pipe (`.pipe(z.email())` checks the address after trimming), a trimmed
 * string that must not be blank, and the characters no field may hold.
 */
function tightenInput(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }) {
  const def = defOf(ctx.zodSchema);
  const json = ctx.jsonSchema;
  if (def.type === 'pipe' && def.out && defOf(def.out).type === 'string') {
    const out = z.toJSONSchema(def.out, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    if (out.format !== undefined) json.format = out.format;
    if (typeof out.pattern === 'string') addPattern(json, out.pattern);
  }
  // Free JSON values (metadata) hold only storable strings too, at any depth.
  if (def.type === 'unknown') json.$ref = '#/components/schemas/StorableJson';
  if (json.type === 'object' && isEmpty(json.additionalProperties))
    json.additionalProperties = { $ref: '#/components/schemas/StorableJson' };
  if (json.type === 'object' && json.additionalProperties !== false) json.propertyNames = { type: 'string', pattern: STORABLE_PATTERN };
  if (json.type !== 'string' || json.enum !== undefined || json.const !== undefined) return;
  const blankRefused = def.type === 'string' && trims(def) && typeof json.minLength === 'number' && json.minLength >= 1;
  addPattern(json, blankRefused ? NON_BLANK_PATTERN : STORABLE_PATTERN);
}

/** Converts a zod schema; named schemas (`.meta({ id })`) move to components and are referenced. */
function converter(components: Record<string, JsonSchema>) {
  return (schema: z.ZodType, io: 'input' | 'output') => {
    const generated = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
      override: io === 'input' ? (ctx) => tightenInput(ctx as never) : undefined,
    });
    const json = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const { $defs, $schema: _dialect, ...rest } = json;
    Object.assign(components, $defs);
    return rest;
  };
}

/** Any JSON value whose strings and keys the database can store. */
const storableJson = {
  description: 'Any JSON value without U+0000 or unpaired surrogates in its strings and keys.',
  anyOf: [
    { type: 'string', pattern: STORABLE_PATTERN },
    { type: ['number', 'boolean', 'null'] },
    { type: 'array', items: { $ref: '#/components/schemas/StorableJson' } },
    {
      type: 'object',
      propertyNames: { pattern: STORABLE_PATTERN },
      additionalProperties: { $ref: '#/components/schemas/StorableJson' },
    },
  ],
};

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
  /** The credential of secured operations (default the BAPI's secret key). */
  security?: { name: string; scheme: JsonSchema };
}) {
  const security = opts.security ?? {
    name: 'secretKey',
    scheme: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_…' },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = { Error: errorSchema, StorableJson: storableJson };
  const toSchema = converter(schemas);
  for (const r of opts.routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const ep = r.endpoint;
    const parameters: unknown[] = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: pathParamSchema(r.path, m[1]!),
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
    if (guard.security) operation.security = [{ [security.name]: [] }];
    if (guard.scope) operation['x-required-scope'] = guard.scope;
    if (ep.body) {
      const schema = toSchema(ep.body, 'input');
      // Without a body the server reads `{}`: the body is required when `{}` is not valid.
      const required = !ep.body.safeParse({}).success || schema.anyOf !== undefined || schema.oneOf !== undefined;
      const upload = { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } };
      operation.requestBody = {
        required,
        content: { 'application/json': { schema }, ...(ep.multipart ? { 'multipart/form-data': { schema: upload } } : {}) },
      };
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
      securitySchemes: { [security.name]: security.scheme },
    },
  };
}
