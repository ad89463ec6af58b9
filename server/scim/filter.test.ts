import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { scimUsers } from '../db/schema';
import { isAppError } from '../http/errors';
import { matches, parseFilter, type Filter } from './filter';
import { filterToSql, tableResolver } from './filter-sql';

const dialect = new PgDialect();

const cmp = (attr: string, op: string, value: unknown, sub?: string) => ({ op, path: { attr, ...(sub ? { sub } : {}) }, value });

describe('the filter parser (RFC 7644 §3.4.2.2)', () => {
  const table: [string, Filter | Record<string, unknown>][] = [
    ['userName eq "bjensen"', cmp('username', 'eq', 'bjensen')],
    ['USERNAME EQ "bjensen"', cmp('username', 'eq', 'bjensen')],
    ['name.familyName co "O\'Malley"', cmp('name', 'co', "O'Malley", 'familyname')],
    ['userName sw "J"', cmp('username', 'sw', 'J')],
    [
      'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"',
      { op: 'sw', path: { uri: 'urn:ietf:params:scim:schemas:core:2.0:user', attr: 'username' }, value: 'J' },
    ],
    ['title pr', { op: 'pr', path: { attr: 'title' } }],
    ['meta.lastModified gt "2011-05-13T04:42:34Z"', cmp('meta', 'gt', '2011-05-13T04:42:34Z', 'lastmodified')],
    ['meta.lastModified ge "2011-05-13T04:42:34Z"', cmp('meta', 'ge', '2011-05-13T04:42:34Z', 'lastmodified')],
    ['meta.lastModified lt "2011-05-13T04:42:34Z"', cmp('meta', 'lt', '2011-05-13T04:42:34Z', 'lastmodified')],
    ['meta.lastModified le "2011-05-13T04:42:34Z"', cmp('meta', 'le', '2011-05-13T04:42:34Z', 'lastmodified')],
    ['active eq true', cmp('active', 'eq', true)],
    ['active ne false', cmp('active', 'ne', false)],
    ['externalId eq null', cmp('externalid', 'eq', null)],
    ['x eq 42', cmp('x', 'eq', 42)],
    ['x ew "a\\"b"', cmp('x', 'ew', 'a"b')],
    [
      'title pr and userType eq "Employee"',
      { op: 'and', left: { op: 'pr', path: { attr: 'title' } }, right: cmp('usertype', 'eq', 'Employee') },
    ],
    ['title pr or userType eq "Intern"', { op: 'or', left: { op: 'pr', path: { attr: 'title' } }, right: cmp('usertype', 'eq', 'Intern') }],
    // "and" binds tighter than "or".
    [
      'a eq "1" or b eq "2" and c eq "3"',
      { op: 'or', left: cmp('a', 'eq', '1'), right: { op: 'and', left: cmp('b', 'eq', '2'), right: cmp('c', 'eq', '3') } },
    ],
    [
      '(a eq "1" or b eq "2") and c eq "3"',
      { op: 'and', left: { op: 'or', left: cmp('a', 'eq', '1'), right: cmp('b', 'eq', '2') }, right: cmp('c', 'eq', '3') },
    ],
    [
      'userType eq "Employee" and not (emails.value co "example.org")',
      { op: 'and', left: cmp('usertype', 'eq', 'Employee'), right: { op: 'not', filter: cmp('emails', 'co', 'example.org', 'value') } },
    ],
    [
      'emails[type eq "work" and value co "@example.com"]',
      {
        op: 'valuePath',
        path: { attr: 'emails' },
        filter: { op: 'and', left: cmp('type', 'eq', 'work'), right: cmp('value', 'co', '@example.com') },
      },
    ],
    [
      'emails[type eq "work"] or ims[type eq "xmpp"]',
      {
        op: 'or',
        left: { op: 'valuePath', path: { attr: 'emails' }, filter: cmp('type', 'eq', 'work') },
        right: { op: 'valuePath', path: { attr: 'ims' }, filter: cmp('type', 'eq', 'xmpp') },
      },
    ],
  ];
  it.each(table)('%s', (text, tree) => {
    expect(parseFilter(text)).toEqual(tree);
  });

  const bad = [
    '',
    'userName',
    'userName eq',
    'userName eq bjensen',
    'userName zz "x"',
    'userName eq "unterminated',
    '(userName eq "x"',
    'userName eq "x")',
    'emails[type eq "work"',
    'userName eq "x" and',
    'a.b.c eq "x"',
    'userName eq "x" ; drop table users',
    'not userName eq "x"',
    'x'.repeat(5000),
    '('.repeat(100) + 'a eq "1"' + ')'.repeat(100),
  ];
  it.each(bad)('refuses %j as 400 invalidFilter', (text) => {
    let err: unknown;
    try {
      parseFilter(text);
    } catch (e) {
      err = e;
    }
    expect(isAppError(err)).toBe(true);
    expect((err as { meta: { scim_type?: string } }).meta.scim_type).toBe('invalidFilter');
  });
});

describe('filters in SQL: every value is a parameter', () => {
  const resolver = tableResolver('urn:ietf:params:scim:schemas:core:2.0:user', {
    'urn:ietf:params:scim:schemas:core:2.0:user': {
      username: { kind: 'string', expr: scimUsers.userName, caseExact: false, key: scimUsers.userNameKey },
      externalid: { kind: 'string', expr: scimUsers.externalId, caseExact: true },
      active: { kind: 'boolean', expr: scimUsers.active },
      'meta.created': { kind: 'datetime', expr: scimUsers.createdAt },
    },
  });
  const toSql = (text: string) => dialect.sqlToQuery(filterToSql(parseFilter(text), resolver));

  const table: [string, string, unknown[]][] = [
    ['userName eq "Bob@X.io"', '"scim_users"."user_name_key" = $1', ['bob@x.io']],
    ['externalId eq "AbC"', '"scim_users"."external_id" = $1', ['AbC']],
    ['userName co "50%_off"', 'lower("scim_users"."user_name") like $1', ['%50\\%\\_off%']],
    ['userName sw "a"', 'lower("scim_users"."user_name") like $1', ['a%']],
    ['userName ew "a"', 'lower("scim_users"."user_name") like $1', ['%a']],
    ['userName gt "m"', 'lower("scim_users"."user_name") > $1', ['m']],
    ['active eq "False"', '"scim_users"."active" = $1', [false]],
    ['meta.created ge "2026-01-01T00:00:00Z"', '"scim_users"."created_at" >= $1', [Date.parse('2026-01-01T00:00:00Z')]],
    ['externalId pr', '("scim_users"."external_id" is not null and "scim_users"."external_id" <> $1)', ['']],
    ['not (active eq true)', 'not "scim_users"."active" = $1', [true]],
    [
      'userName eq "a\'; drop table users; --" or externalId eq "x"',
      '("scim_users"."user_name_key" = $1 or "scim_users"."external_id" = $2)',
      ["a'; drop table users; --", 'x'],
    ],
  ];
  it.each(table)('%s', (text, sqlText, params) => {
    const q = toSql(text);
    expect(q.sql).toBe(sqlText);
    expect(q.params).toEqual(params);
  });

  it.each(['nickName eq "x"', 'active gt true', 'userName eq 3', 'meta.created gt "yesterday"', 'urn:example:Thing:userName eq "x"'])(
    'refuses %j as invalidFilter',
    (text) => {
      expect(() => toSql(text)).toThrow(/Invalid filter/);
    },
  );
});

describe('value filters in memory (PATCH paths)', () => {
  const emails = [
    { value: 'a@work.io', type: 'work', primary: true },
    { value: 'a@home.io', type: 'home' },
  ];
  it.each([
    ['type eq "work"', [true, false]],
    ['type eq "WORK"', [true, false]],
    ['type ne "work"', [false, true]],
    ['value ew "home.io"', [false, true]],
    ['primary eq true', [true, false]],
    ['primary pr', [true, false]],
    ['type eq "work" or value sw "a@home"', [true, true]],
    ['not (type eq "work")', [false, true]],
  ] as const)('%s', (text, expected) => {
    const f = parseFilter(text);
    expect(emails.map((e) => matches(f, e))).toEqual(expected);
  });

  it('compares caseExact sub-attributes exactly', () => {
    const f = parseFilter('value eq "user_ABC"');
    expect(matches(f, { value: 'user_abc' }, new Set(['value']))).toBe(false);
    expect(matches(f, { value: 'user_ABC' }, new Set(['value']))).toBe(true);
  });
});
