import { sql, type SQL } from 'drizzle-orm';
import { prefixPattern, containsPattern } from './like';

/**
 * Most rows one field of a search contributes: a query as short as one letter matches a
 * large share of a big instance, and the page is sorted after the union, so every field is
 * cut at its first SEARCH_CANDIDATES matches (in the order of its index). A narrower query
 * finds the rest.
 */
export const SEARCH_CANDIDATES = 1000;

/**
 * The ids of the users a person searching for `query` means, as a union of bounded index
 * range scans (each a B-tree on the lower-cased field in the C collation, so LIKE 'q%' is a
 * range): a prefix of the first name, last name, "first last", username, external id, email
 * address or its domain, or of a phone number (digits, with or without its +), a run of six
 * or more digits typed without a + anywhere in a phone number (trigram index), or the exact user id. An exact
 * address is the first row of its range.
 *
 * `scope(userId)` narrows every field to the users it admits (the organization member search
 * passes its membership), inside the bounded scans, so the bound counts admitted users only.
 */
export function userSearch(instanceId: string, query: string, scope?: (userId: SQL) => SQL): SQL {
  const q = query.trim().toLowerCase();
  const p = prefixPattern(q);
  const within = (userId: SQL) => (scope ? sql` and ${scope(userId)}` : sql``);
  const field = (table: string, id: string, key: string, pattern: string, extra: SQL = sql``) =>
    sql`(select ${sql.raw(id)} from ${sql.raw(table)} t where t.instance_id = ${instanceId} and (${sql.raw(key)}) collate "C" like ${pattern}${extra}${within(sql.raw(`t.${id}`))} order by (${sql.raw(key)}) collate "C" limit ${SEARCH_CANDIDATES})`;
  const parts: SQL[] = [
    sql`(select t.id from users t where t.instance_id = ${instanceId} and t.id = ${query.trim()}${within(sql`t.id`)})`,
    field('users', 'id', 'lower(t.first_name)', p),
    field('users', 'id', 'lower(t.last_name)', p),
    field('users', 'id', 't.username_key', p),
    field('users', 'id', 't.external_id', prefixPattern(query.trim())),
    field('email_addresses', 'user_id', 't.email_key', p),
    field('email_addresses', 'user_id', "split_part(t.email_key, '@', 2)", p),
  ];
  const words = q.split(/\s+/);
  if (words.length > 1) {
    const [first, ...rest] = words;
    parts.push(
      field(
        'users',
        'id',
        'lower(t.first_name)',
        prefixPattern(first!),
        sql` and lower(t.last_name) like ${prefixPattern(rest.join(' '))}`,
      ),
    );
  }
  const digits = q.replace(/[\s().-]/g, '');
  if (/^\+?\d{3,}$/.test(digits)) {
    const bare = digits.replace(/^\+/, '');
    parts.push(field('phone_numbers', 'user_id', 't.phone_number', prefixPattern(`+${bare}`)));
    // Typed with its +, a number is a prefix from its country code; without, it may be the national part
    // of one. The run inside a number is a trigram search, slow where most numbers share their first
    // digits (a million `+1555…`: 97 searches/s), so a query with its + is spared it.
    if (bare.length >= 6 && !digits.startsWith('+')) {
      parts.push(
        sql`(select t.user_id from phone_numbers t where t.instance_id = ${instanceId} and t.phone_number like ${containsPattern(bare)}${within(sql`t.user_id`)} limit ${SEARCH_CANDIDATES})`,
      );
    }
  }
  return sql.join(parts, sql` union `);
}
