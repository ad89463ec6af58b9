import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, EXPIRES_IN_MINUTES, type EmailTemplateDefinition } from './types';

export default {
  name: 'password_reset_code',
  description: 'A one-time code that lets the user set a new password.',
  variables: [
    { name: 'code', type: 'string', required: true, description: 'The one-time password reset code', sample: '123456' },
    APP_NAME,
    LOGO_URL,
    BRAND_COLOR,
    SUPPORT_EMAIL,
    EXPIRES_IN_MINUTES,
  ],
  locales: {
    en: {
      subject: '{{code}} is your {{app_name}} password reset code',
      mjml: layout({
        lang: 'en',
        title: 'Reset your {{app_name}} password',
        preview: 'Your password reset code is {{code}}',
        content: `
<mj-text mj-class="heading">Reset your password</mj-text>
<mj-text>Enter this code to choose a new password:</mj-text>
<mj-text mj-class="code">{{code}}</mj-text>
<mj-text padding="16px 0 16px 0">{{#if expires_in_minutes}}The code expires in {{expires_in_minutes}} minutes. {{/if}}Never share it with anyone.</mj-text>`,
        footer: 'If you didn’t ask to reset your password, ignore this email: your password stays the same.',
      }),
      text: `Reset your {{app_name}} password

Enter this code to choose a new password:

    {{code}}

{{#if expires_in_minutes}}The code expires in {{expires_in_minutes}} minutes. {{/if}}Never share it with anyone.

If you didn’t ask to reset your password, ignore this email: your password stays the same.
`,
    },
    fr: {
      subject: '{{code}} est votre code de réinitialisation du mot de passe {{app_name}}',
      mjml: layout({
        lang: 'fr',
        title: 'Réinitialisez votre mot de passe {{app_name}}',
        preview: 'Votre code de réinitialisation est {{code}}',
        content: `
<mj-text mj-class="heading">Réinitialisez votre mot de passe</mj-text>
<mj-text>Saisissez ce code pour choisir un nouveau mot de passe :</mj-text>
<mj-text mj-class="code">{{code}}</mj-text>
<mj-text padding="16px 0 16px 0">{{#if expires_in_minutes}}Le code expire dans {{expires_in_minutes}} minutes. {{/if}}Ne le communiquez à personne.</mj-text>`,
        footer: 'Si vous n’avez pas demandé à réinitialiser votre mot de passe, ignorez cet e-mail : votre mot de passe reste inchangé.',
      }),
      text: `Réinitialisez votre mot de passe {{app_name}}

Saisissez ce code pour choisir un nouveau mot de passe :

    {{code}}

{{#if expires_in_minutes}}Le code expire dans {{expires_in_minutes}} minutes. {{/if}}Ne le communiquez à personne.

Si vous n’avez pas demandé à réinitialiser votre mot de passe, ignorez cet e-mail : votre mot de passe reste inchangé.
`,
    },
    de: {
      subject: '{{code}} ist Ihr Code zum Zurücksetzen des {{app_name}}-Passworts',
      mjml: layout({
        lang: 'de',
        title: 'Setzen Sie Ihr {{app_name}}-Passwort zurück',
        preview: 'Ihr Code zum Zurücksetzen lautet {{code}}',
        content: `
<mj-text mj-class="heading">Passwort zurücksetzen</mj-text>
<mj-text>Geben Sie diesen Code ein, um ein neues Passwort zu wählen:</mj-text>
<mj-text mj-class="code">{{code}}</mj-text>
<mj-text padding="16px 0 16px 0">{{#if expires_in_minutes}}Der Code läuft in {{expires_in_minutes}} Minuten ab. {{/if}}Geben Sie ihn niemals weiter.</mj-text>`,
        footer: 'Wenn Sie das Zurücksetzen nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.',
      }),
      text: `Setzen Sie Ihr {{app_name}}-Passwort zurück

Geben Sie diesen Code ein, um ein neues Passwort zu wählen:

    {{code}}

{{#if expires_in_minutes}}Der Code läuft in {{expires_in_minutes}} Minuten ab. {{/if}}Geben Sie ihn niemals weiter.

Wenn Sie das Zurücksetzen nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
