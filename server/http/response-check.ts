/**
 * Paths of fields in `sent` that the schema-parsed `declared` value lost: zod objects
 * strip keys they do not name, so whatever is missing after parsing was never declared.
 */
export function unknownResponseFields(sent: unknown, declared: unknown, path = '$'): string[] {
  if (sent === null || typeof sent !== 'object' || declared === null || typeof declared !== 'object') return [];
  if (Array.isArray(sent)) {
    if (!Array.isArray(declared)) return [];
    return sent.flatMap((v, i) => unknownResponseFields(v, declared[i], `${path}[${i}]`));
  }
  const out: string[] = [];
  for (const [k, v] of Object.entries(sent)) {
    if (v === undefined) continue;
    if (!Object.hasOwn(declared, k)) out.push(`${path}.${k}`);
    else out.push(...unknownResponseFields(v, (declared as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return out;
}
