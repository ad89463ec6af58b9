import { z } from 'zod';
import { MAX_RESULTS } from './discovery';
import { invalidValue } from './errors';
import { MAX_FILTER_LENGTH } from './filter';

type Json = Record<string, unknown>;

const attributeList = z
  .string()
  .max(2048)
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Query parameters of GET on a single resource (RFC 7644 §3.9). */
export const projectionQuery = z.object({ attributes: attributeList.optional(), excludedAttributes: attributeList.optional() });
export type Projection = z.output<typeof projectionQuery>;

const intParam = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d{1,9}$/, 'must be an integer')
    .transform(Number),
]);

/** Query parameters of a list (RFC 7644 §3.4.2): 1-based `startIndex`, `count` clamped to MAX_RESULTS. */
export const listQuery = projectionQuery.extend({
  filter: z.string().max(MAX_FILTER_LENGTH).optional(),
  startIndex: intParam.optional().transform((v) => Math.max(1, v ?? 1)),
  count: intParam.optional().transform((v) => Math.min(MAX_RESULTS, Math.max(0, v ?? MAX_RESULTS))),
  sortBy: z.string().max(256).optional(),
  sortOrder: z.string().max(32).optional(),
});
export type ListQuery = z.output<typeof listQuery>;

interface Name {
  uri?: string;
  attr: string;
  sub?: string;
}

/** `urn:…:User:department`, `name.givenName`, `emails`. */
function parseName(text: string, extensions: readonly string[]): Name {
  const lower = text.toLowerCase();
  const uri = [...extensions].sort((a, b) => b.length - a.length).find((u) => lower.startsWith(`${u.toLowerCase()}:`));
  const rest = uri ? text.slice(uri.length + 1) : text.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i, '');
  const [attr, sub, more] = rest.split('.');
  if (!attr || more !== undefined) throw invalidValue(`"${text}" is not an attribute name.`);
  return { ...(uri ? { uri } : {}), attr: attr.toLowerCase(), ...(sub ? { sub: sub.toLowerCase() } : {}) };
}

const keyIn = (obj: Json, lowerName: string) => Object.keys(obj).find((k) => k.toLowerCase() === lowerName);

/** Whether `names` asks for any part of this top-level key (or the whole extension object). */
function wants(names: Name[], key: string, extensions: readonly string[]) {
  const ext = extensions.find((u) => u.toLowerCase() === key.toLowerCase());
  if (ext) return names.some((n) => n.uri?.toLowerCase() === ext.toLowerCase() || n.attr === ext.toLowerCase());
  return names.some((n) => !n.uri && n.attr === key.toLowerCase());
}

function pick(resource: Json, names: Name[], extensions: readonly string[]): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(resource)) {
    if (key === 'id' || key === 'schemas') {
      out[key] = value;
      continue;
    }
    const ext = extensions.find((u) => u.toLowerCase() === key.toLowerCase());
    if (ext && typeof value === 'object' && value !== null) {
      const wanted = names.filter((n) => n.uri?.toLowerCase() === ext.toLowerCase());
      if (wanted.length === 0) continue;
      const sub: Json = {};
      for (const n of wanted) {
        const k = keyIn(value as Json, n.attr);
        if (k) sub[k] = (value as Json)[k];
      }
      out[key] = sub;
      continue;
    }
    const asked = names.filter((n) => !n.uri && n.attr === key.toLowerCase());
    if (asked.length === 0) continue;
    if (asked.some((n) => !n.sub) || typeof value !== 'object' || value === null) {
      out[key] = value;
      continue;
    }
    const subs = new Set(asked.map((n) => n.sub!));
    const keep = (v: Json) => Object.fromEntries(Object.entries(v).filter(([k]) => subs.has(k.toLowerCase())));
    out[key] = Array.isArray(value) ? value.map((v) => keep(v as Json)) : keep(value as Json);
  }
  return out;
}

function drop(resource: Json, names: Name[], extensions: readonly string[]): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(resource)) {
    if (key === 'id' || key === 'schemas') {
      out[key] = value;
      continue;
    }
    const ext = extensions.find((u) => u.toLowerCase() === key.toLowerCase());
    if (ext && typeof value === 'object' && value !== null) {
      const gone = new Set(names.filter((n) => n.uri?.toLowerCase() === ext.toLowerCase()).map((n) => n.attr));
      out[key] = Object.fromEntries(Object.entries(value as Json).filter(([k]) => !gone.has(k.toLowerCase())));
      continue;
    }
    const named = names.filter((n) => !n.uri && n.attr === key.toLowerCase());
    if (named.some((n) => !n.sub)) continue;
    if (named.length && typeof value === 'object' && value !== null) {
      const subs = new Set(named.map((n) => n.sub!));
      const strip = (v: Json) => Object.fromEntries(Object.entries(v).filter(([k]) => !subs.has(k.toLowerCase())));
      out[key] = Array.isArray(value) ? value.map((v) => strip(v as Json)) : strip(value as Json);
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * Applies `attributes` (only these, plus `id` and `schemas`, which are always returned)
 * or `excludedAttributes` to a resource's representation.
 */
export function project(resource: Json, p: Projection, extensions: readonly string[]): Json {
  if (p.attributes?.length)
    return pick(
      resource,
      p.attributes.map((a) => parseName(a, extensions)),
      extensions,
    );
  if (p.excludedAttributes?.length)
    return drop(
      resource,
      p.excludedAttributes.map((a) => parseName(a, extensions)),
      extensions,
    );
  return resource;
}

/** Whether a projection returns this top-level attribute (members of large groups are only read when they are). */
export function returns(p: Projection, attr: string, extensions: readonly string[] = []): boolean {
  if (p.attributes?.length)
    return wants(
      p.attributes.map((a) => parseName(a, extensions)),
      attr,
      extensions,
    );
  if (p.excludedAttributes?.length)
    return !p.excludedAttributes.map((a) => parseName(a, extensions)).some((n) => !n.uri && n.attr === attr.toLowerCase() && !n.sub);
  return true;
}
