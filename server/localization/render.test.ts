import { beforeEach, describe, expect, it, vi } from 'vitest';
import { EMAIL_TEMPLATE_NAMES, EMAIL_TEMPLATES, SMS_TEMPLATE_NAMES } from '../../emails';
import {
  clearTemplateCache,
  htmlToText,
  renderSms,
  renderTemplate,
  sampleData,
  TEMPLATE_LIMITS,
  TemplateInvalidError,
  templateContext,
  validateTemplate,
  type EmailTemplate,
  type TemplateSchema,
} from './render';
import { builtInEmailTemplate, builtInSmsTemplate, localeChain } from './built-in-templates';

// Count MJML compilations, to prove a template compiles once.
const mjmlCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock('mjml', async (importOriginal) => {
  const real = ((await importOriginal()) as { default: (...a: unknown[]) => unknown }).default;
  return {
    default: (...args: unknown[]) => {
      mjmlCalls.count++;
      return real(...args);
    },
  };
});

const schema: TemplateSchema = [
  { name: 'code', type: 'string', required: true, description: 'The code', sample: '123456' },
  { name: 'app_name', type: 'string', required: false, description: 'The app', sample: 'Acme' },
  { name: 'url', type: 'url', required: false, description: 'A link', sample: 'https://example.com/x' },
  { name: 'minutes', type: 'number', required: false, description: 'Minutes', sample: 10 },
];

/** An MJML document whose column holds `inner`; line 5 is the first line of `inner`. */
const doc = (inner: string) => `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
${inner}
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

const template = (parts: Partial<EmailTemplate> = {}): EmailTemplate => ({
  name: 'test',
  locale: 'en',
  variables: schema,
  subject: 'Your code is {{code}}',
  mjml: doc('<mj-text>Code: {{code}}</mj-text>'),
  text: 'Code: {{code}}',
  ...parts,
});

const validate = (parts: Partial<Pick<EmailTemplate, 'subject' | 'mjml' | 'text'>>, s: TemplateSchema = schema) =>
  validateTemplate({ subject: 'Hi', mjml: doc('<mj-text>{{code}}</mj-text>'), text: '{{code}}', ...parts }, s);

beforeEach(() => clearTemplateCache());

describe('renderTemplate', () => {
  it('substitutes variables, escaping HTML in the HTML part only', async () => {
    const out = await renderTemplate(
      template({
        subject: '{{code}} for {{app_name}}',
        mjml: doc('<mj-text>Hello {{app_name}}, code {{code}}</mj-text>'),
        text: 'Code {{code}} for {{app_name}}',
      }),
      { code: '<b>1&2</b>', app_name: `O'Brien "Ltd" <script>` },
    );
    expect(out.html).toContain('Hello O&#x27;Brien &quot;Ltd&quot; &lt;script&gt;, code &lt;b&gt;1&amp;2&lt;/b&gt;');
    expect(out.html).not.toContain('<script>');
    expect(out.html).not.toContain('<b>1');
    expect(out.text).toBe(`Code <b>1&2</b> for O'Brien "Ltd" <script>\n`);
    expect(out.subject).toBe(`<b>1&2</b> for O'Brien "Ltd" <script>`);
  });

  it('escapes attribute values and keeps MJML layout around the expressions', async () => {
    const out = await renderTemplate(template({ mjml: doc('<mj-text>{{code}}</mj-text>\n<mj-button href="{{url}}">Go</mj-button>') }), {
      code: '1',
      url: 'https://example.com/?a=1&b="2"',
    });
    expect(out.html).toContain('href="https://example.com/?a&#x3D;1&amp;b&#x3D;&quot;2&quot;"');
    expect(out.html).toMatch(/<!doctype html>/i);
  });

  it('fills absent optional variables with nothing, so #if hides their copy', async () => {
    const t = template({ text: '{{code}}{{#if minutes}} expires in {{minutes}} min{{/if}}{{#unless app_name}} (no app){{/unless}}' });
    expect((await renderTemplate(t, { code: '1' })).text).toBe('1 (no app)\n');
    expect((await renderTemplate(t, { code: '1', minutes: 5, app_name: 'A' })).text).toBe('1 expires in 5 min\n');
  });

  it('keeps the subject on one line', async () => {
    const out = await renderTemplate(template({ subject: 'Code\n{{code}}' }), { code: 'a\r\nBcc: x@example.com' });
    expect(out.subject).toBe('Code a Bcc: x@example.com');
  });

  it('derives the text body from the HTML when the template has none', async () => {
    const out = await renderTemplate(
      template({ text: null, mjml: doc('<mj-text>Your code: {{code}}</mj-text>\n<mj-button href="{{url}}">Open</mj-button>') }),
      {
        code: '4242',
        url: 'https://example.com/a?b=1&c=2',
      },
    );
    expect(out.text).toContain('Your code: 4242');
    expect(out.text).toContain('Open (https://example.com/a?b=1&c=2)');
    expect(out.text).not.toMatch(/<|&amp;/);
  });

  it('refuses data that does not fit the schema', async () => {
    await expect(renderTemplate(template(), {})).rejects.toThrow(/code is required/);
    await expect(renderTemplate(template(), { code: '1', url: 'javascript:alert(1)' })).rejects.toThrow(/http\(s\) URL/);
    await expect(renderTemplate(template(), { code: '1', minutes: '5' })).rejects.toThrow(/must be a number/);
    await expect(renderTemplate(template(), { code: 'x'.repeat(5000) })).rejects.toThrow(/longer than/);
  });

  it('compiles a template once, however often it renders', async () => {
    const t = template({ mjml: doc('<mj-text>Once {{code}}</mj-text>') });
    const before = mjmlCalls.count;
    await Promise.all([renderTemplate(t, { code: '1' }), renderTemplate(t, { code: '2' })]);
    await renderTemplate({ ...t }, { code: '3' });
    expect(mjmlCalls.count - before).toBe(1);
  });

  it('refuses an invalid template with its problems', async () => {
    const err = await renderTemplate(template({ text: '{{nope}}' }), { code: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateInvalidError);
    expect((err as TemplateInvalidError).problems).toEqual([
      expect.objectContaining({ part: 'text', kind: 'missing_required_variable', line: 1, column: 1 }),
      expect.objectContaining({ part: 'text', kind: 'unknown_variable', line: 1, column: 3 }),
    ]);
  });
});

describe('validateTemplate', () => {
  it('accepts a valid template', async () => {
    expect(
      await validate({ subject: '{{code}} for {{app_name}}', text: '{{#if minutes}}{{minutes}}{{else}}soon{{/if}} {{code}}' }),
    ).toEqual([]);
  });

  it('reports an unknown variable at its line and column, with a suggestion', async () => {
    const problems = await validate({ text: 'Hello\n  your code: {{cdoe}}\n{{code}}' });
    expect(problems).toEqual([
      { part: 'text', kind: 'unknown_variable', line: 2, column: 16, message: expect.stringContaining('Did you mean {{code}}?') },
    ]);
    expect(await validate({ subject: 'x {{ first_name }}' })).toEqual([
      { part: 'subject', kind: 'unknown_variable', line: 1, column: 6, message: expect.stringContaining('Unknown variable "first_name"') },
    ]);
  });

  it('reports a missing required variable per body part', async () => {
    const problems = await validate({ mjml: doc('<mj-text>No code here</mj-text>'), text: 'nor here' });
    expect(problems).toEqual([
      { part: 'mjml', kind: 'missing_required_variable', line: 1, column: 1, message: expect.stringContaining('{{code}} is required') },
      { part: 'text', kind: 'missing_required_variable', line: 1, column: 1, message: expect.stringContaining('{{code}} is required') },
    ]);
  });

  it('reports a required variable that an #if can hide, at its use', async () => {
    const problems = await validate({ text: 'Hi\n{{#if minutes}}{{code}}{{/if}}' });
    expect(problems).toEqual([
      {
        part: 'text',
        kind: 'missing_required_variable',
        line: 2,
        column: 16,
        message: expect.stringContaining('must not depend on an #if'),
      },
    ]);
    expect(await validate({ text: '{{#if minutes}}{{code}}{{else}}{{code}}{{/if}}' })).toEqual([]);
  });

  it('reports unknown helpers, blocks and sub-expressions', async () => {
    const problems = await validate({
      text: '{{code}}\n{{uppercase code}}\n{{#each code}}x{{/each}}\n{{#with code}}{{/with}}\n{{#if (eq code 1)}}{{/if}}\n{{lookup . "code"}}\n{{log code}}\n{{if code}}',
    });
    expect(problems.map((p) => [p.kind, p.line, p.column])).toEqual([
      ['unknown_helper', 2, 1],
      ['unknown_helper', 3, 1],
      ['unknown_helper', 4, 1],
      ['unknown_helper', 5, 7],
      ['unknown_helper', 6, 1],
      ['unknown_helper', 7, 1],
      ['unknown_helper', 8, 1],
    ]);
    expect(problems[0]!.message).toMatch(/Unknown helper "uppercase"/);
    expect(problems[6]!.message).toMatch(/as a block/);
  });

  it('reports MJML errors at their line, pointing at the tag', async () => {
    const mjml = `<mjml>
  <mj-body>
    <mj-section>
      <mj-text>{{code}}</mj-text>
      <mj-column>
        <mj-button color="not-a-colour" href="https://example.com">Go</mj-button>
        <mj-blink>x</mj-blink>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
    const problems = await validate({ mjml });
    expect(problems).toEqual([
      { part: 'mjml', kind: 'mjml_error', line: 4, column: 7, message: expect.stringMatching(/mj-text cannot be used inside mj-section/) },
      { part: 'mjml', kind: 'mjml_error', line: 6, column: 9, message: expect.stringMatching(/Attribute color has invalid value/) },
      { part: 'mjml', kind: 'mjml_error', line: 7, column: 9, message: expect.stringMatching(/mj-blink doesn't exist/) },
    ]);
    expect(await validate({ mjml: 'not mjml' })).toEqual([
      expect.objectContaining({ kind: 'missing_required_variable' }),
      { part: 'mjml', kind: 'mjml_error', line: 1, column: 1, message: expect.stringMatching(/Parsing failed/) },
    ]);
  });

  it('reports an expression MJML would drop', async () => {
    const mjml = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>ok</mj-text>
        {{code}}
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
    expect(await validate({ mjml })).toEqual([
      { part: 'mjml', kind: 'mjml_error', line: 6, column: 9, message: expect.stringContaining('{{code}} is dropped by MJML') },
    ]);
  });

  it('reports Handlebars syntax errors at their line and column', async () => {
    expect(await validate({ text: 'a\nb {{code}\nc' })).toEqual([
      { part: 'text', kind: 'syntax_error', line: 2, column: 9, message: 'Syntax error: unexpected character inside {{…}}.' },
    ]);
    expect(await validate({ text: '{{code}}\n  {{#if minutes}}x{{/unless}}' })).toEqual([
      { part: 'text', kind: 'syntax_error', line: 2, column: 6, message: "Syntax error: if doesn't match unless." },
    ]);
    expect(await validate({ subject: 'x\n{{#if code}} y' })).toEqual([
      { part: 'subject', kind: 'syntax_error', line: 2, column: 15, message: expect.stringContaining('unexpected end of the template') },
    ]);
    expect(await validate({ text: '{{code}} {{!-- open' })).toEqual([
      { part: 'text', kind: 'syntax_error', line: 1, column: 10, message: expect.stringContaining('unrecognized text') },
    ]);
  });

  it('refuses partials and decorators', async () => {
    expect(await validate({ text: '{{code}}\n{{> footer}}' })).toEqual([
      { part: 'text', kind: 'syntax_error', line: 2, column: 1, message: 'Partials ({{> name}}) are not supported.' },
    ]);
    expect(await validate({ text: '{{code}} {{#> layout}}x{{/layout}}' })).toEqual([
      expect.objectContaining({ part: 'text', kind: 'syntax_error', message: 'Partials ({{> name}}) are not supported.' }),
    ]);
    expect((await validate({ text: '{{code}} {{* inline}}' }))[0]).toMatchObject({
      kind: 'syntax_error',
      message: expect.stringMatching(/not supported/),
    });
    await expect(renderTemplate(template({ text: '{{code}}{{> footer}}' }), { code: '1' })).rejects.toBeInstanceOf(TemplateInvalidError);
  });

  it('blocks prototype access and every path but a declared name', async () => {
    const problems = await validate({
      text: '{{code}}\n{{constructor}}\n{{__proto__}}\n{{code.constructor}}\n{{@root.constructor}}\n{{../code}}\n{{this}}\n{{toString}}\n{{#if constructor.name}}{{/if}}',
    });
    expect(problems.map((p) => [p.kind, p.line])).toEqual([
      ['unknown_variable', 2],
      ['unknown_variable', 3],
      ['unknown_variable', 4],
      ['unknown_variable', 5],
      ['unknown_variable', 6],
      ['unknown_variable', 7],
      ['unknown_variable', 8],
      ['unknown_variable', 9],
    ]);
    await expect(renderTemplate(template({ text: '{{code}}{{constructor.constructor}}' }), { code: '1' })).rejects.toBeInstanceOf(
      TemplateInvalidError,
    );
  });

  it('keeps data to the schema, on an object without a prototype', () => {
    const data = JSON.parse('{"code":"1","__proto__":{"polluted":true},"extra":"x"}') as Record<string, string>;
    const ctx = templateContext(schema, data);
    expect(Object.getPrototypeOf(ctx)).toBeNull();
    expect(Object.keys(ctx).sort()).toEqual(['app_name', 'code', 'minutes', 'url']);
    expect('constructor' in ctx).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses raw HTML output in the MJML part only', async () => {
    expect(await validate({ mjml: doc('<mj-text>{{code}} {{{app_name}}}</mj-text>') })).toEqual([
      { part: 'mjml', kind: 'syntax_error', line: 5, column: 19, message: expect.stringContaining('raw HTML') },
    ]);
    expect(await validate({ text: '{{{code}}}' })).toEqual([]);
  });

  it('refuses mj-include', async () => {
    expect(await validate({ mjml: doc('<mj-text>{{code}}</mj-text>\n  <mj-include path="/etc/passwd" />') })).toEqual([
      { part: 'mjml', kind: 'mjml_error', line: 6, column: 3, message: expect.stringContaining('mj-include is not supported') },
    ]);
  });

  it('limits the size of each part', async () => {
    const problems = await validateTemplate(
      {
        subject: 'x'.repeat(TEMPLATE_LIMITS.subject + 1),
        mjml: doc(`<mj-text>{{code}}${'x'.repeat(TEMPLATE_LIMITS.mjml)}</mj-text>`),
        text: `{{code}}${'x'.repeat(TEMPLATE_LIMITS.text)}`,
      },
      schema,
    );
    expect(problems.map((p) => [p.part, p.kind])).toEqual([
      ['subject', 'too_large'],
      ['mjml', 'too_large'],
      ['text', 'too_large'],
    ]);
    expect(await validateTemplate({ text: `{{code}}${'x'.repeat(TEMPLATE_LIMITS.sms)}` }, schema, { sms: true })).toEqual([
      expect.objectContaining({ part: 'text', kind: 'too_large' }),
    ]);
  });

  it('refuses a schema with a name objects inherit', async () => {
    await expect(
      validateTemplate({ text: 'x' }, [{ name: 'constructor', type: 'string', required: false, description: '', sample: '' }]),
    ).rejects.toThrow(/Invalid template variable name/);
  });
});

describe('built-in templates', () => {
  it.each(EMAIL_TEMPLATE_NAMES)('%s validates and renders with its sample values', async (name) => {
    const t = builtInEmailTemplate(name);
    expect(await validateTemplate(t, t.variables)).toEqual([]);
    const out = await renderTemplate(t, sampleData(t.variables));
    for (const v of t.variables.filter((x) => x.required)) {
      expect(out.html).toContain(String(v.sample).replace(/&/g, '&amp;').replace(/=/g, '&#x3D;'));
      expect(out.text).toContain(String(v.sample));
    }
    expect(out.subject).not.toMatch(/\{\{|\s{2}/);
    // A clean product look without remote resources but the instance's own logo: no other image, no web fonts.
    expect(out.html.replace(/<img src="https:\/\/example\.com\/logo\.png"[^>]*>/g, '')).not.toMatch(
      /<img|fonts\.googleapis|@import|url\(/i,
    );
    expect(out.html).toContain('Acme');
  });

  it.each(EMAIL_TEMPLATE_NAMES.flatMap((name) => Object.keys(EMAIL_TEMPLATES[name].locales).map((locale) => [name, locale] as const)))(
    '%s in %s validates, renders and keeps the layout',
    async (name, locale) => {
      const t = builtInEmailTemplate(name, locale);
      expect(t.locale).toBe(locale);
      expect(await validateTemplate(t, t.variables)).toEqual([]);
      const out = await renderTemplate(t, sampleData(t.variables));
      expect(out.html).toContain(`lang="${locale}"`);
      expect(out.subject).not.toMatch(/\{\{/);
    },
  );

  it('has English, French and German copy of every email and SMS', () => {
    for (const def of Object.values(EMAIL_TEMPLATES)) expect(Object.keys(def.locales).sort()).toEqual(['de', 'en', 'fr']);
    expect(Object.keys(builtInSmsTemplate('verification_code', 'de'))).toContain('body');
    expect(builtInSmsTemplate('verification_code', 'fr').locale).toBe('fr');
  });

  it('declares every variable fully', () => {
    for (const def of Object.values(EMAIL_TEMPLATES)) {
      for (const v of def.variables) {
        expect(v).toEqual({
          name: expect.stringMatching(/^[a-z_]+$/),
          type: expect.any(String),
          required: expect.any(Boolean),
          description: expect.any(String),
          sample: expect.anything(),
        });
      }
    }
    expect(EMAIL_TEMPLATES.verification_code.variables.filter((v) => v.required).map((v) => v.name)).toEqual(['code']);
  });

  it('shows the verification code big and monospaced', async () => {
    const out = await renderTemplate(builtInEmailTemplate('verification_code'), {
      code: '987654',
      app_name: 'Acme',
      expires_in_minutes: 10,
    });
    expect(out.subject).toBe('987654 is your Acme verification code');
    expect(out.html).toMatch(/font-family:ui-monospace[^"]*font-size:32px[^>]*>987654</);
    expect(out.text).toContain('The code expires in 10 minutes.');
  });

  const SMS_BODIES: Record<(typeof SMS_TEMPLATE_NAMES)[number], string> = {
    verification_code: '123456 is your Acme verification code. It expires in 10 minutes. Don’t share it.',
    test_message: 'This is a test message from Acme: SMS delivery works.',
  };
  it.each(SMS_TEMPLATE_NAMES)('SMS %s validates and renders', async (name) => {
    const t = builtInSmsTemplate(name);
    expect(await validateTemplate({ text: t.body }, t.variables, { sms: true })).toEqual([]);
    expect((await renderSms(t, { code: '123456', app_name: 'Acme', expires_in_minutes: 10 })).body).toBe(SMS_BODIES[name]);
  });

  it('resolves a locale to the most specific copy there is, then English', () => {
    expect(localeChain('fr-CA')).toEqual(['fr-ca', 'fr', 'en']);
    expect(localeChain('../../etc')).toEqual(['en']);
    expect(localeChain(null)).toEqual(['en']);
    expect(builtInEmailTemplate('verification_code', 'fr-CA').locale).toBe('fr');
    expect(builtInEmailTemplate('verification_code', 'es').locale).toBe('en');
    expect(builtInEmailTemplate('verification_code', 'en-GB')).toMatchObject({ locale: 'en', name: 'verification_code' });
  });
});

describe('htmlToText', () => {
  it('keeps text and links, drops markup and styles', () => {
    expect(
      htmlToText(
        '<html><head><style>p{}</style></head><body><p>Hi &amp; <b>bye</b></p><a href="https://x.test/">link</a><br/>end</body></html>',
      ),
    ).toBe('Hi & bye\nlink (https://x.test/)\nend\n');
  });
});
