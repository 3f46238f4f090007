/**
 * Unknown fields of a body, at every level its schema describes: accepted (production is assumed
 * to ignore them) but each named, with a "did you mean" when it is a near miss of a known field.
 */
import type { z } from 'zod';

/** Names that are not typos of a field but mean one; offered only where that field exists. */
const MEANS = new Map<string, string>([
  ['currency', 'currency_code'],
  ['amount_value', 'amount'],
  ['merchant_ref', 'merchant_ref_no'],
  ['reference', 'merchant_ref_no'],
  ['payee_id', 'payee'],
  ['payer_id', 'payer'],
  ['signature', 'sign'],
]);

/**
 * The fields of an object schema, each with the fields of the object (or array of objects) it
 * holds, if any: what unknown fields are looked for in, at every level.
 */
interface Fields {
  readonly names: ReadonlyMap<string, Fields | undefined>;
}

/** Worked out once per schema rather than on every request. */
const knownFields = new WeakMap<z.ZodObject, Fields>();

function fieldsOf(schema: z.ZodObject): Fields {
  const known = knownFields.get(schema);
  if (known) return known;
  const names = new Map<string, Fields | undefined>();
  const fields: Fields = { names };
  // Kept before it is filled, so a schema that holds itself ends.
  knownFields.set(schema, fields);
  for (const [name, field] of Object.entries(schema.shape)) names.set(name, nestedFieldsOf(field as z.ZodType));
  return fields;
}

/** The fields of the object a field holds (through optional, nullable, default, pipes and arrays), if it holds one. */
function nestedFieldsOf(schema: z.ZodType): Fields | undefined {
  for (let s: z.ZodType | undefined = schema, hops = 0; s && hops < 16; hops++) {
    const def = s.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType };
    if (def.type === 'object') return fieldsOf(s as z.ZodObject);
    s = def.innerType ?? def.in ?? def.element;
  }
  return undefined;
}

export const MAX_UNKNOWN_NAMED = 10;

/** How a warning reads: with a "did you mean", of a field or a query parameter, and whether it says the field is ignored (the API) or not (a refusal). */
interface Wording {
  readonly suggest: boolean;
  readonly what: string;
  readonly ignored: boolean;
}

/**
 * Names each unknown field of `value` (and of the objects within it that the schema describes),
 * at most MAX_UNKNOWN_NAMED in all; `path` is where value is ("" or "match.").
 */
function unknownFields(fields: Fields, value: unknown, path: string, found: string[], how: Wording): void {
  if (value === null || typeof value !== 'object' || found.length >= MAX_UNKNOWN_NAMED) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && found.length < MAX_UNKNOWN_NAMED; i++) unknownFields(fields, value[i], `${path.slice(0, -1)}[${i}].`, found, how);
    return;
  }
  for (const name of Object.keys(value)) {
    // Own properties of a Map only: "constructor" or "__proto__" are names like any other.
    if (!fields.names.has(name)) {
      if (found.length >= MAX_UNKNOWN_NAMED) return;
      const shown = JSON.stringify(`${path}${name.slice(0, 64)}`);
      const hint = how.suggest ? suggestion(name, fields) : undefined;
      found.push(`unknown ${how.what} ${shown}${how.ignored ? ' ignored' : ''}${hint ? ` (did you mean "${path}${hint}"?)` : ''}`);
      continue;
    }
    const nested = fields.names.get(name);
    if (nested) unknownFields(nested, (value as Record<string, unknown>)[name], `${path}${name}.`, found, how);
  }
}

/** The known field an unknown name most likely meant, if one is close enough. */
function suggestion(name: string, fields: Fields): string | undefined {
  const meant = MEANS.get(name);
  if (meant !== undefined && fields.names.has(meant)) return meant;
  if (name.length > 64) return undefined;
  // productType, ProductType and product-type all mean product_type.
  const bare = squeeze(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of fields.names.keys()) {
    if (squeeze(known) === bare) return known;
    // One slip in a short name (time, mthod), two in a longer one (merchnt_ref_on).
    const allowed = Math.min(known.length, name.length) >= 6 ? 2 : 1;
    const distance = editDistance(name.toLowerCase(), known, allowed);
    if (distance <= allowed && distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

const squeeze = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Edits (insert, delete, replace, swap two neighbours) from `a` to `b`; anything over `limit`
 * is limit + 1, so a long name costs no more than a glance.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    [before, previous] = [previous, current];
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/**
 * The warning for each unknown field of `body` (at most MAX_UNKNOWN_NAMED), in the order sent;
 * without `suggest`, no "did you mean" (the instance's budget for costly work is spent); without `ignored`, for a refusal, no "ignored".
 */
export function unknownFieldWarnings(schema: z.ZodObject, body: Record<string, unknown>, suggest = true, what = 'field', ignored = true): string[] {
  const found: string[] = [];
  unknownFields(fieldsOf(schema), body, '', found, { suggest, what, ignored });
  return found;
}

