import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_TEMPLATE_NAMES, EMAIL_TEMPLATES } from '../../../emails';
import { layout } from '../../../emails/layout';
import { auditLogs, emails, events, localizationRevisions, localizations } from '../../db/schema';
import { sendEmail } from '../../email/mailer';
import { bootstrapEmptyStore } from '../../instances/bootstrap';
import { claimedConsole, consoleBrowser, invitedViewer, type ConsoleBrowser } from '../../testing/console-client';
import { expectError } from '../../testing/expect';
import { sharedHarness } from '../../testing/harness';
import { TEST_SEND_LIMIT } from '../../email/custom-templates';

const h = sharedHarness();
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let instanceId: string;
let base: string;

beforeAll(async () => {
  instanceId = (await bootstrapEmptyStore(h.runtime.deps))!.instance.id;
  owner = await claimedConsole(h);
  base = `/accounts/${owner.accountId}/instances/${instanceId}`;
});

const db = () => h.runtime.deps.db;
const auditOf = (action: string) =>
  db()
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, instanceId), eq(auditLogs.action, action)));
const count = async (table: typeof emails | typeof localizations | typeof localizationRevisions | typeof events) =>
  (await db().select().from(table)).length;

/** A French verification-code email: the layout with `{{code}}` (or without, when told). */
const frenchMjml = (body = '<mj-text mj-class="code">{{code}}</mj-text>') =>
  layout({
    lang: 'fr',
    title: 'Votre code {{app_name}}',
    preview: 'Votre code',
    content: `<mj-text mj-class="heading">Bonjour de l’équipe {{app_name}}</mj-text>\n${body}`,
    footer: 'Pied de page',
  });
const frenchDraft = { locale: 'fr', subject: 'Votre code : {{code}}', mjml: frenchMjml(), text: 'Votre code : {{code}}' };

describe('GET /email_templates', () => {
  it('lists every built-in template with its variable schema and its state', async () => {
    const res = await owner.b.dash('GET', `${base}/email_templates`);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(EMAIL_TEMPLATE_NAMES);
    const code = res.body.data.find((t: { name: string }) => t.name === 'verification_code');
    expect(code).toMatchObject({ object: 'email_template', state: 'built_in', overrides: [], built_in_locales: ['en', 'fr', 'de'] });
    expect(code.variables).toEqual(EMAIL_TEMPLATES.verification_code.variables.map((v) => ({ ...v })));
    expect(code.variables[0]).toEqual({ name: 'code', type: 'string', required: true, description: expect.any(String), sample: '123456' });
  });

  it('shows one template in a locale with its base copy and what readers get', async () => {
    const res = await owner.b.dash('GET', `${base}/email_templates/verification_code?locale=de`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      locale: 'de',
      override: null,
      base: { locale: 'de' },
      effective: { source: 'built_in', locale: 'de' },
    });
    expect(res.body.base.subject).toBe('{{code}} ist Ihr {{app_name}}-Bestätigungscode');
    expectError(await owner.b.dash('GET', `${base}/email_templates/nope`), 404, 'NOT_FOUND');
    expectError(await owner.b.dash('GET', `${base}/email_templates/verification_code?locale=xx-YY-ZZ`), 422, 'VALIDATION_FAILED', {
      param: 'locale',
    });
  });
});

describe('PUT /email_templates/:template', () => {
  it('refuses a verification-code override without {{code}}: one entry per problem, nothing stored', async () => {
    const before = await count(localizations);
    const res = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, {
      body: { ...frenchDraft, mjml: frenchMjml('<mj-text>Pas de code ici</mj-text>'), text: 'Pas de code' },
    });
    expectError(res, 422, 'VALIDATION_FAILED', { part: 'mjml', reason: 'missing_required_variable', line: 1, column: 1 });
    expect(res.body.errors.map((e: { meta: Record<string, unknown> }) => [e.meta.part, e.meta.reason])).toEqual([
      ['mjml', 'missing_required_variable'],
      ['text', 'missing_required_variable'],
    ]);
    expect(res.body.errors[0].message).toMatch(/\{\{code\}\} is required/);
    expect(await count(localizations)).toBe(before);
  });

  it('reports each kind of problem with its part, line and column', async () => {
    const res = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, {
      body: {
        locale: 'fr',
        subject: 'Code {{cdoe}}',
        mjml: frenchMjml('<mj-text>{{code}}</mj-text>\n<mj-blink>x</mj-blink>'),
        text: '{{code}}\n{{uppercase code}}',
      },
    });
    expectError(res, 422, 'VALIDATION_FAILED');
    const problems = res.body.errors.map((e: { meta: Record<string, unknown> }) => e.meta);
    expect(problems).toEqual([
      { param: 'subject', part: 'subject', reason: 'unknown_variable', line: 1, column: 8 },
      expect.objectContaining({ part: 'mjml', reason: 'mjml_error', line: expect.any(Number) }),
      { param: 'text', part: 'text', reason: 'unknown_helper', line: 2, column: 1 },
    ]);
    const blinkLine =
      frenchMjml('<mj-text>{{code}}</mj-text>\n<mj-blink>x</mj-blink>')
        .split('\n')
        .findIndex((l) => l.includes('mj-blink')) + 1;
    expect(problems[1].line).toBe(blinkLine);
    expect(res.body.errors[0].message).toMatch(/Did you mean \{\{code\}\}/);
  });

  it('refuses a template that would throw at send time, and sizes over the limit', async () => {
    const partial = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, {
      body: { ...frenchDraft, text: '{{code}} {{> footer}}' },
    });
    expectError(partial, 422, 'VALIDATION_FAILED', { part: 'text', reason: 'syntax_error' });
    const proto = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, {
      body: { ...frenchDraft, text: '{{code}} {{constructor.constructor}}' },
    });
    expectError(proto, 422, 'VALIDATION_FAILED', { part: 'text', reason: 'unknown_variable' });
    const big = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, {
      body: { ...frenchDraft, subject: `{{code}}${'x'.repeat(1_000)}` },
    });
    expectError(big, 422, 'VALIDATION_FAILED', { part: 'subject', reason: 'too_large' });
    const unknownField = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, { body: { ...frenchDraft, partials: {} } });
    expectError(unknownField, 422, 'VALIDATION_FAILED', { param: 'partials', reason: 'unknown_field' });
  });

  it('stores a valid override in the locale given, keeps it as a revision, and audits it', async () => {
    const res = await owner.b.dash('PUT', `${base}/email_templates/verification_code`, { body: frenchDraft });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'verification_code',
      state: 'overridden',
      locale: 'fr',
      override: {
        object: 'localization',
        id: expect.stringMatching(/^loc_/),
        locale: 'fr',
        resource: 'email.verification_code',
        kind: 'email',
        enabled: true,
      },
      effective: { source: 'override', locale: 'fr', subject: frenchDraft.subject },
    });
    expect(res.body.override.content).toEqual({ subject: frenchDraft.subject, mjml: frenchDraft.mjml, text: frenchDraft.text });
    expect(res.body.override.updated_by).toBe(`operator:${owner.operator.id}`);
    // English readers are not affected.
    expect((await owner.b.dash('GET', `${base}/email_templates/verification_code?locale=en`)).body.effective.source).toBe('built_in');
    const [entry] = await auditOf('email_template.updated');
    expect(entry).toMatchObject({
      actor: `operator:${owner.operator.id}`,
      target: res.body.override.id,
      details: { resource: 'email.verification_code', locale: 'fr' },
    });
    const revisions = await owner.b.dash('GET', `${base}/email_templates/verification_code/revisions?locale=fr`);
    expect(revisions.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(revisions.body.data).toEqual([
      expect.objectContaining({
        object: 'localization_revision',
        id: expect.stringMatching(/^locrev_/),
        locale: 'fr',
        content: res.body.override.content,
      }),
    ]);
  });

  it('applies to the instance default locale when none is given', async () => {
    const res = await owner.b.dash('PUT', `${base}/email_templates/sign_in_link`, {
      body: { subject: 'Your link to {{app_name}}', mjml: EMAIL_TEMPLATES.sign_in_link.locales.en.mjml, text: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ locale: 'en', override: { locale: 'en', content: { text: null } } });
    const list = await owner.b.dash('GET', `${base}/email_templates`);
    expect(list.body.data.find((t: { name: string }) => t.name === 'sign_in_link').state).toBe('overridden');
  });
});

describe('POST /email_templates/:template/preview', () => {
  it('renders an unsaved draft with sample values; sends and writes nothing', async () => {
    const counts = await Promise.all([count(emails), count(localizations), count(localizationRevisions), count(events)]);
    const draft = { ...frenchDraft, subject: 'Aperçu {{code}} pour {{app_name}}' };
    const res = await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, { body: draft });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'email_preview',
      template: 'verification_code',
      locale: 'fr',
      subject: 'Aperçu 123456 pour Development',
    });
    expect(res.body.html).toContain('Bonjour de l’équipe Development');
    expect(res.body.html).toContain('123456');
    expect(res.body.text).toBe('Votre code : 123456\n');
    expect(await Promise.all([count(emails), count(localizations), count(localizationRevisions), count(events)])).toEqual(counts);
  });

  it('uses the values given, and without a draft renders what readers of the locale get', async () => {
    const res = await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, {
      body: { locale: 'fr', data: { code: '999111', app_name: 'Orbit' } },
    });
    expect(res.body).toMatchObject({ locale: 'fr', subject: 'Votre code : 999111' });
    const de = await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, { body: { locale: 'de-AT' } });
    expect(de.body).toMatchObject({ locale: 'de', subject: '123456 ist Ihr Development-Bestätigungscode' });
    expectError(
      await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, { body: { data: { nope: 'x' } } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'data.nope',
        reason: 'unknown_variable',
      },
    );
    expectError(
      await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, { body: { data: { expires_in_minutes: 'ten' } } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'data',
      },
    );
    expectError(
      await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, { body: { subject: 'x {{code}}' } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'mjml',
        reason: 'required',
      },
    );
    const invalid = await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, {
      body: { ...frenchDraft, mjml: frenchMjml('<mj-text>sans code</mj-text>') },
    });
    expectError(invalid, 422, 'VALIDATION_FAILED', { part: 'mjml', reason: 'missing_required_variable' });
  });

  it('produces the same HTML as the mailer for the same input', async () => {
    const data = { code: '246810', app_name: 'Development', expires_in_minutes: 10 };
    const preview = await owner.b.dash('POST', `${base}/email_templates/verification_code/preview`, { body: { locale: 'fr', data } });
    const sent = await sendEmail(h.runtime.deps, { instanceId, to: 'same@example.com', template: 'verification_code', data, locale: 'fr' });
    expect(sent.locale).toBe('fr');
    expect(preview.body.html).toBe(sent.html);
    expect(preview.body.subject).toBe(sent.subject);
    expect(preview.body.text).toBe(sent.text);
  });
});

describe('POST /email_templates/:template/test_send', () => {
  it('sends to the operator’s own verified address, records the email and emits email.created', async () => {
    const res = await owner.b.dash('POST', `${base}/email_templates/verification_code/test_send`, {
      body: { ...frenchDraft, subject: 'Test {{code}}' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'email',
      to: 'owner@example.com',
      template: 'verification_code',
      locale: 'fr',
      subject: 'Test 123456',
      status: 'delivered',
    });
    const [inOutbox] = await h.outbox('owner@example.com');
    expect(inOutbox).toEqual(res.body);
    const created = await db()
      .select()
      .from(events)
      .where(and(eq(events.instanceId, instanceId), eq(events.type, 'email.created')));
    expect(created.map((e) => (e.data as { id: string }).id)).toContain(res.body.id);
  });

  it('refuses any recipient field', async () => {
    for (const field of ['to', 'cc', 'bcc', 'recipient', 'email_address']) {
      const res = await owner.b.dash('POST', `${base}/email_templates/verification_code/test_send`, {
        body: { [field]: 'victim@example.com' },
      });
      expectError(res, 422, 'VALIDATION_FAILED', { param: field, reason: 'recipient_not_allowed' });
    }
    expect(await h.outbox('victim@example.com')).toEqual([]);
  });

  it('is rate-limited per operator (429 with Retry-After)', async () => {
    h.clock.advance(60_000);
    for (let i = 0; i < TEST_SEND_LIMIT.limit; i++) {
      expect((await owner.b.dash('POST', `${base}/email_templates/sign_in_link/test_send`, { body: {} })).status).toBe(201);
    }
    const limited = await owner.b.dash('POST', `${base}/email_templates/sign_in_link/test_send`, { body: {} });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.errors[0].meta.retry_after).toEqual(Number(limited.headers.get('retry-after')));
    h.clock.advance(60_000);
    expect((await owner.b.dash('POST', `${base}/email_templates/sign_in_link/test_send`, { body: {} })).status).toBe(201);
  });
});

describe('revisions and DELETE', () => {
  it('restores an earlier revision, audited', async () => {
    const second = { ...frenchDraft, subject: 'Deuxième version {{code}}' };
    expect((await owner.b.dash('PUT', `${base}/email_templates/verification_code`, { body: second })).status).toBe(200);
    const revisions = (await owner.b.dash('GET', `${base}/email_templates/verification_code/revisions?locale=fr`)).body.data;
    expect(revisions.map((r: { content: { subject: string } }) => r.content.subject)).toEqual([second.subject, frenchDraft.subject]);
    const paged = await owner.b.dash('GET', `${base}/email_templates/verification_code/revisions?locale=fr&limit=1`);
    expect(paged.body).toMatchObject({ has_more: true, next_cursor: revisions[0].id });
    const first = revisions[1];
    const restored = await owner.b.dash('POST', `${base}/email_templates/verification_code/revisions/${first.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ locale: 'fr', effective: { source: 'override', subject: frenchDraft.subject } });
    expect((await auditOf('email_template.restored'))[0]).toMatchObject({ details: { revision_id: first.id, locale: 'fr' } });
    // A revision of another template is not found under this one.
    expectError(await owner.b.dash('POST', `${base}/email_templates/sign_in_link/revisions/${first.id}/restore`), 404, 'NOT_FOUND');
    expectError(
      await owner.b.dash('POST', `${base}/email_templates/verification_code/revisions/locrev_01ARZ3NDEKTSV4RRFFQ69G5FAV/restore`),
      404,
      'NOT_FOUND',
    );
  });

  it('DELETE drops the override: the built-in applies again; audited; revisions stay', async () => {
    const res = await owner.b.dash('DELETE', `${base}/email_templates/verification_code?locale=fr`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ locale: 'fr', override: null, state: 'built_in', effective: { source: 'built_in', locale: 'fr' } });
    expect((await auditOf('email_template.deleted')).length).toBe(1);
    expectError(await owner.b.dash('DELETE', `${base}/email_templates/verification_code?locale=fr`), 404, 'NOT_FOUND');
    expect((await owner.b.dash('GET', `${base}/email_templates/verification_code/revisions?locale=fr`)).body.data.length).toBe(3);
    const sent = await sendEmail(h.runtime.deps, {
      instanceId,
      to: 'after-delete@example.com',
      template: 'verification_code',
      data: { code: '1' },
      locale: 'fr',
    });
    expect(sent.subject).toBe('1 est votre code de vérification Development');
  });
});

describe('localizations', () => {
  it('GET answers the overrides and the resource catalog', async () => {
    const res = await owner.b.dash('GET', `${base}/localizations`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, catalog: { built_in_locales: ['en', 'fr', 'de'] } });
    expect(res.body.catalog.supported_languages).toContain('es');
    const keys = res.body.catalog.resources.map((r: { key: string }) => r.key);
    expect(keys).toEqual(expect.arrayContaining([...EMAIL_TEMPLATE_NAMES.map((n) => `email.${n}`), 'sms.verification_code']));
    const sms = res.body.catalog.resources.find((r: { key: string }) => r.key === 'sms.verification_code');
    expect(Object.keys(sms.base).sort()).toEqual(['de', 'en', 'fr']);
    expect(sms.variables.map((v: { name: string }) => v.name)).toEqual(['code', 'app_name', 'expires_in_minutes']);
    expect(res.body.data.map((l: { resource: string }) => l.resource)).toEqual(['email.sign_in_link']);
    expect((await owner.b.dash('GET', `${base}/localizations?kind=sms`)).body.data).toEqual([]);
  });

  it('creates or replaces an SMS override, validated like the base template', async () => {
    const bad = await owner.b.dash('POST', `${base}/localizations`, {
      body: { locale: 'fr', resource: 'sms.verification_code', content: { body: 'Bonjour {{app_name}}' } },
    });
    expectError(bad, 422, 'VALIDATION_FAILED', { part: 'body', reason: 'missing_required_variable' });
    const created = await owner.b.dash('POST', `${base}/localizations`, {
      body: { locale: 'fr-CA', resource: 'sms.verification_code', content: { body: 'Code {{code}} pour {{app_name}}' } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'localization',
      locale: 'fr-CA',
      resource: 'sms.verification_code',
      kind: 'sms',
      enabled: true,
      content: { body: 'Code {{code}} pour {{app_name}}' },
    });
    const replaced = await owner.b.dash('POST', `${base}/localizations`, {
      body: { locale: 'fr-ca', resource: 'sms.verification_code', content: { body: 'Code : {{code}}' } },
    });
    expect(replaced.body).toMatchObject({ id: created.body.id, locale: 'fr-CA', content: { body: 'Code : {{code}}' } });
    expect((await auditOf('localization.updated')).length).toBe(2);

    const sms = await import('../../sms/send').then((m) =>
      m.sendSms(h.runtime.deps, { instanceId, to: '+14155550123', template: 'verification_code', data: { code: '777' }, locale: 'fr-CA' }),
    );
    expect(sms).toMatchObject({ locale: 'fr-CA', body: 'Code : 777' });
  });

  it('refuses unknown resources, locales, fields and content shapes', async () => {
    const cases: [unknown, Record<string, unknown>][] = [
      [
        { locale: 'fr', resource: 'email.nope', content: {} },
        { param: 'resource', reason: 'unknown_resource' },
      ],
      [
        { locale: 'fr', resource: 'hosted.nope.missing', content: { text: 'x' } },
        { param: 'resource', reason: 'unknown_resource' },
      ],
      [
        { locale: 'klingon', resource: 'sms.verification_code', content: { body: '{{code}}' } },
        { param: 'locale', reason: 'unsupported_locale' },
      ],
      [
        { locale: 'fr', resource: 'sms.verification_code', content: { text: '{{code}}' } },
        { param: 'content.text', reason: 'unknown_field' },
      ],
      [{ locale: 'fr', resource: 'email.verification_code', content: { subject: 'x' } }, { param: 'content.mjml' }],
      [{ locale: 'fr', resource: '../etc', content: {} }, { param: 'resource' }],
    ];
    for (const [body, meta] of cases)
      expectError(await owner.b.dash('POST', `${base}/localizations`, { body }), 422, 'VALIDATION_FAILED', meta);
  });

  it('PATCH disables and edits; DELETE removes; the base copy renders again', async () => {
    const [row] = (await owner.b.dash('GET', `${base}/localizations?kind=sms`)).body.data;
    const disabled = await owner.b.dash('PATCH', `${base}/localizations/${row.id}`, { body: { enabled: false } });
    expect(disabled.body).toMatchObject({ id: row.id, enabled: false, content: row.content });
    const { sendSms } = await import('../../sms/send');
    expect(
      (
        await sendSms(h.runtime.deps, {
          instanceId,
          to: '+14155550124',
          template: 'verification_code',
          data: { code: '5' },
          locale: 'fr-CA',
        })
      ).body,
    ).toMatch(/^5 est votre code/);
    const edited = await owner.b.dash('PATCH', `${base}/localizations/${row.id}`, {
      body: { enabled: true, content: { body: 'Nouveau {{code}}' } },
    });
    expect(edited.body).toMatchObject({ enabled: true, content: { body: 'Nouveau {{code}}' } });
    expectError(
      await owner.b.dash('PATCH', `${base}/localizations/${row.id}`, { body: { content: { body: 'sans code' } } }),
      422,
      'VALIDATION_FAILED',
      { part: 'body' },
    );
    expectError(await owner.b.dash('PATCH', `${base}/localizations/${row.id}`, { body: {} }), 422, 'VALIDATION_FAILED');
    const deleted = await owner.b.dash('DELETE', `${base}/localizations/${row.id}`);
    expect(deleted.body).toEqual({ object: 'localization', id: row.id, deleted: true });
    expect((await auditOf('localization.deleted')).length).toBe(1);
    expectError(await owner.b.dash('DELETE', `${base}/localizations/${row.id}`), 404, 'NOT_FOUND');
    expectError(
      await owner.b.dash('PATCH', `${base}/localizations/loc_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { body: { enabled: true } }),
      404,
      'NOT_FOUND',
    );
  });

  it('an email override via POST /localizations is the same row PUT /email_templates writes', async () => {
    const created = await owner.b.dash('POST', `${base}/localizations`, {
      body: {
        locale: 'de',
        resource: 'email.password_reset_code',
        content: { subject: 'Code {{code}}', mjml: EMAIL_TEMPLATES.password_reset_code.locales.de.mjml },
      },
    });
    expect(created.status).toBe(200);
    const tpl = await owner.b.dash('GET', `${base}/email_templates/password_reset_code?locale=de`);
    expect(tpl.body.override.id).toBe(created.body.id);
    expect(tpl.body.effective).toMatchObject({ source: 'override', subject: 'Code {{code}}', text: null });
    expect((await auditOf('email_template.updated')).some((a) => a.target === created.body.id)).toBe(true);
  });
});

describe('authorization', () => {
  let viewer: ConsoleBrowser;
  let otherBase: string;

  beforeAll(async () => {
    viewer = await invitedViewer(h, owner, 'vera@example.com');
    const account = await viewer.dash('POST', '/accounts', { body: { name: 'Vera’s' } });
    const inst = await viewer.dash('POST', `/accounts/${account.body.id}/instances`, { body: { name: 'Vera app' } });
    otherBase = `/accounts/${account.body.id}/instances/${inst.body.id}`;
  });

  const writes = (b: string): [string, string, unknown][] => [
    ['PUT', `${b}/email_templates/verification_code`, frenchDraft],
    ['DELETE', `${b}/email_templates/verification_code?locale=fr`, undefined],
    ['POST', `${b}/email_templates/verification_code/preview`, {}],
    ['POST', `${b}/email_templates/verification_code/test_send`, {}],
    ['POST', `${b}/email_templates/verification_code/revisions/locrev_01ARZ3NDEKTSV4RRFFQ69G5FAV/restore`, undefined],
    ['POST', `${b}/localizations`, { locale: 'fr', resource: 'sms.verification_code', content: { body: '{{code}}' } }],
    ['PATCH', `${b}/localizations/loc_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { enabled: false }],
    ['DELETE', `${b}/localizations/loc_01ARZ3NDEKTSV4RRFFQ69G5FAV`, undefined],
  ];
  const reads = (b: string) => [
    `${b}/email_templates`,
    `${b}/email_templates/verification_code`,
    `${b}/email_templates/verification_code/revisions`,
    `${b}/localizations`,
  ];

  it('viewers read but cannot write (403)', async () => {
    for (const path of reads(base)) expect((await viewer.dash('GET', path)).status, path).toBe(200);
    for (const [method, path, body] of writes(base)) {
      expectError(await viewer.dash(method, path, { body }), 403, 'FORBIDDEN', { reason: 'role_required' });
    }
  });

  it('another account’s instance answers 404 on every route', async () => {
    for (const path of reads(otherBase)) expectError(await owner.b.dash('GET', path), 404, 'NOT_FOUND');
    for (const [method, path, body] of writes(otherBase)) expectError(await owner.b.dash(method, path, { body }), 404, 'NOT_FOUND');
    // Their instance under my account id too.
    const mixed = `/accounts/${owner.accountId}/instances/${otherBase.split('/').at(-1)}`;
    expectError(await owner.b.dash('GET', `${mixed}/localizations`), 404, 'NOT_FOUND');
  });

  it('writes need the console Origin (CSRF), and every route a session', async () => {
    for (const [method, path, body] of writes(base)) {
      expectError(await owner.b.dash(method, path, { body, origin: null }), 403, 'ORIGIN_NOT_ALLOWED');
      expectError(await owner.b.dash(method, path, { body, origin: 'https://evil.example' }), 403, 'ORIGIN_NOT_ALLOWED');
    }
    const anon = consoleBrowser(h, owner.platform);
    for (const path of reads(base)) expectError(await anon.dash('GET', path), 401, 'UNAUTHENTICATED');
    for (const [method, path, body] of writes(base)) expectError(await anon.dash(method, path, { body }), 401, 'UNAUTHENTICATED');
  });
});
