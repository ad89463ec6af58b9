import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, type EmailTemplateDefinition } from './types';

export default {
  name: 'new_device_sign_in',
  description: 'A notice that the account was signed in to from a device not seen before.',
  variables: [
    {
      name: 'device',
      type: 'string',
      required: true,
      description: 'The browser and operating system of the sign-in',
      sample: 'Firefox on macOS',
    },
    { name: 'ip', type: 'string', required: true, description: 'The IP address of the sign-in', sample: '203.0.113.7' },
    {
      name: 'time',
      type: 'string',
      required: true,
      description: 'When the sign-in happened, formatted for the reader',
      sample: '22 November 2025, 10:24 UTC',
    },
    APP_NAME,
    LOGO_URL,
    BRAND_COLOR,
    SUPPORT_EMAIL,
  ],
  locales: {
    en: {
      subject: 'New sign-in to your {{app_name}} account',
      mjml: layout({
        lang: 'en',
        title: 'New sign-in to {{app_name}}',
        preview: 'New sign-in from {{device}}',
        content: `
<mj-text mj-class="heading">New sign-in to your account</mj-text>
<mj-text>Your {{app_name}} account was just signed in to from a new device.</mj-text>
<mj-table>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Device</td><td style="padding:4px 0;">{{device}}</td></tr>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">IP address</td><td style="padding:4px 0;">{{ip}}</td></tr>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Time</td><td style="padding:4px 0;">{{time}}</td></tr>
</mj-table>
<mj-text>If this was you, there is nothing to do. If not, reset your password now and sign out of your other sessions.</mj-text>`,
        footer: 'You receive this notice for every sign-in from a new device.',
      }),
      text: `New sign-in to your {{app_name}} account

Your account was just signed in to from a new device.

Device:      {{device}}
IP address:  {{ip}}
Time:        {{time}}

If this was you, there is nothing to do. If not, reset your password now and sign out of your other sessions.
`,
    },
    fr: {
      subject: 'Nouvelle connexion à votre compte {{app_name}}',
      mjml: layout({
        lang: 'fr',
        title: 'Nouvelle connexion à {{app_name}}',
        preview: 'Nouvelle connexion depuis {{device}}',
        content: `
<mj-text mj-class="heading">Nouvelle connexion à votre compte</mj-text>
<mj-text>Quelqu’un vient de se connecter à votre compte {{app_name}} depuis un nouvel appareil.</mj-text>
<mj-table>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Appareil</td><td style="padding:4px 0;">{{device}}</td></tr>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Adresse IP</td><td style="padding:4px 0;">{{ip}}</td></tr>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Date</td><td style="padding:4px 0;">{{time}}</td></tr>
</mj-table>
<mj-text>Si c’était vous, vous n’avez rien à faire. Sinon, réinitialisez votre mot de passe maintenant et déconnectez vos autres sessions.</mj-text>`,
        footer: 'Vous recevez cet avis pour chaque connexion depuis un nouvel appareil.',
      }),
      text: `Nouvelle connexion à votre compte {{app_name}}

Quelqu’un vient de se connecter à votre compte depuis un nouvel appareil.

Appareil :    {{device}}
Adresse IP :  {{ip}}
Date :        {{time}}

Si c’était vous, vous n’avez rien à faire. Sinon, réinitialisez votre mot de passe maintenant et déconnectez vos autres sessions.
`,
    },
    de: {
      subject: 'Neue Anmeldung bei Ihrem {{app_name}}-Konto',
      mjml: layout({
        lang: 'de',
        title: 'Neue Anmeldung bei {{app_name}}',
        preview: 'Neue Anmeldung von {{device}}',
        content: `
<mj-text mj-class="heading">Neue Anmeldung bei Ihrem Konto</mj-text>
<mj-text>Bei Ihrem {{app_name}}-Konto hat sich soeben jemand von einem neuen Gerät angemeldet.</mj-text>
<mj-table>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Gerät</td><td style="padding:4px 0;">{{device}}</td></tr>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">IP-Adresse</td><td style="padding:4px 0;">{{ip}}</td></tr>
  <tr><td style="padding:4px 16px 4px 0;color:#71717a;">Zeit</td><td style="padding:4px 0;">{{time}}</td></tr>
</mj-table>
<mj-text>Wenn Sie das waren, ist nichts zu tun. Andernfalls setzen Sie jetzt Ihr Passwort zurück und melden Sie Ihre anderen Sitzungen ab.</mj-text>`,
        footer: 'Sie erhalten diesen Hinweis bei jeder Anmeldung von einem neuen Gerät.',
      }),
      text: `Neue Anmeldung bei Ihrem {{app_name}}-Konto

Bei Ihrem Konto hat sich soeben jemand von einem neuen Gerät angemeldet.

Gerät:       {{device}}
IP-Adresse:  {{ip}}
Zeit:        {{time}}

Wenn Sie das waren, ist nichts zu tun. Andernfalls setzen Sie jetzt Ihr Passwort zurück und melden Sie Ihre anderen Sitzungen ab.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
