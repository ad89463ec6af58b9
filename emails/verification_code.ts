import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, EXPIRES_IN_MINUTES, type EmailTemplateDefinition } from './types';

export default {
  name: 'verification_code',
  description: 'A one-time code that verifies an email address (sign-up, sign-in by code, adding an address).',
  variables: [
    { name: 'code', type: 'string', required: true, description: 'The one-time verification code', sample: '123456' },
    APP_NAME,
    LOGO_URL,
    BRAND_COLOR,
    SUPPORT_EMAIL,
    EXPIRES_IN_MINUTES,
  ],
  locales: {
    en: {
      subject: '{{code}} is your {{app_name}} verification code',
      mjml: layout({
        lang: 'en',
        title: 'Your {{app_name}} verification code',
        preview: 'Your verification code is {{code}}',
        content: `
<mj-text mj-class="heading">Your verification code</mj-text>
<mj-text>Enter this code to verify your email address:</mj-text>
<mj-text mj-class="code">{{code}}</mj-text>
<mj-text padding="16px 0 16px 0">{{#if expires_in_minutes}}The code expires in {{expires_in_minutes}} minutes. {{/if}}Never share it with anyone.</mj-text>`,
        footer: 'If you didn’t request this code, you can ignore this email.',
      }),
      text: `Your {{app_name}} verification code

Enter this code to verify your email address:

    {{code}}

{{#if expires_in_minutes}}The code expires in {{expires_in_minutes}} minutes. {{/if}}Never share it with anyone.

If you didn’t request this code, you can ignore this email.
`,
    },
    fr: {
      subject: '{{code}} est votre code de vérification {{app_name}}',
      mjml: layout({
        lang: 'fr',
        title: 'Votre code de vérification {{app_name}}',
        preview: 'Votre code de vérification est {{code}}',
        content: `
<mj-text mj-class="heading">Votre code de vérification</mj-text>
<mj-text>Saisissez ce code pour vérifier votre adresse e-mail :</mj-text>
<mj-text mj-class="code">{{code}}</mj-text>
<mj-text padding="16px 0 16px 0">{{#if expires_in_minutes}}Le code expire dans {{expires_in_minutes}} minutes. {{/if}}Ne le communiquez à personne.</mj-text>`,
        footer: 'Si vous n’avez pas demandé ce code, vous pouvez ignorer cet e-mail.',
      }),
      text: `Votre code de vérification {{app_name}}

Saisissez ce code pour vérifier votre adresse e-mail :

    {{code}}

{{#if expires_in_minutes}}Le code expire dans {{expires_in_minutes}} minutes. {{/if}}Ne le communiquez à personne.

Si vous n’avez pas demandé ce code, vous pouvez ignorer cet e-mail.
`,
    },
    de: {
      subject: '{{code}} ist Ihr {{app_name}}-Bestätigungscode',
      mjml: layout({
        lang: 'de',
        title: 'Ihr {{app_name}}-Bestätigungscode',
        preview: 'Ihr Bestätigungscode lautet {{code}}',
        content: `
<mj-text mj-class="heading">Ihr Bestätigungscode</mj-text>
<mj-text>Geben Sie diesen Code ein, um Ihre E-Mail-Adresse zu bestätigen:</mj-text>
<mj-text mj-class="code">{{code}}</mj-text>
<mj-text padding="16px 0 16px 0">{{#if expires_in_minutes}}Der Code läuft in {{expires_in_minutes}} Minuten ab. {{/if}}Geben Sie ihn niemals weiter.</mj-text>`,
        footer: 'Wenn Sie diesen Code nicht angefordert haben, können Sie diese E-Mail ignorieren.',
      }),
      text: `Ihr {{app_name}}-Bestätigungscode

Geben Sie diesen Code ein, um Ihre E-Mail-Adresse zu bestätigen:

    {{code}}

{{#if expires_in_minutes}}Der Code läuft in {{expires_in_minutes}} Minuten ab. {{/if}}Geben Sie ihn niemals weiter.

Wenn Sie diesen Code nicht angefordert haben, können Sie diese E-Mail ignorieren.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
