import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, EXPIRES_IN_MINUTES, LINK_REQUEST, type EmailTemplateDefinition } from './types';

export default {
  name: 'verification_link',
  description: 'A one-time link that verifies an email address: a sign-up, or an address added to an account (email_link).',
  variables: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The one-time verification link',
      sample: 'https://example.com/v1/verify?token=sample',
    },
    APP_NAME,
    LOGO_URL,
    BRAND_COLOR,
    SUPPORT_EMAIL,
    EXPIRES_IN_MINUTES,
    ...LINK_REQUEST,
  ],
  locales: {
    en: {
      subject: 'Verify your email address for {{app_name}}',
      mjml: layout({
        lang: 'en',
        title: 'Verify your email address',
        preview: 'Confirm this email address for {{app_name}}',
        content: `
<mj-text mj-class="heading">Verify your email address</mj-text>
<mj-text>Use the button below to confirm this email address for your {{app_name}} account.{{#if expires_in_minutes}} The link expires in {{expires_in_minutes}} minutes and works once.{{/if}}</mj-text>
<mj-button href="{{url}}">Verify email address</mj-button>
<mj-text mj-class="muted">Or paste this link into your browser:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>
<mj-text mj-class="muted">{{#if time}}Asked for on {{time}} from network {{location}}, on {{device}}. If this wasn’t you, do not open the link: someone else may be trying to use your address.{{/if}}</mj-text>`,
        footer: 'If you didn’t ask for this, you can ignore this email.',
      }),
      text: `Verify your email address

Open this link to confirm this email address for your {{app_name}} account:

{{url}}

{{#if expires_in_minutes}}The link expires in {{expires_in_minutes}} minutes and works once.

{{/if}}{{#if time}}Asked for on {{time}} from network {{location}}, on {{device}}. If this wasn’t you, do not open the link: someone else may be trying to use your address.

{{/if}}If you didn’t ask for this, you can ignore this email.
`,
    },
    fr: {
      subject: 'Vérifiez votre adresse e-mail pour {{app_name}}',
      mjml: layout({
        lang: 'fr',
        title: 'Vérifiez votre adresse e-mail',
        preview: 'Confirmez cette adresse e-mail pour {{app_name}}',
        content: `
<mj-text mj-class="heading">Vérifiez votre adresse e-mail</mj-text>
<mj-text>Utilisez le bouton ci-dessous pour confirmer cette adresse e-mail pour votre compte {{app_name}}.{{#if expires_in_minutes}} Le lien expire dans {{expires_in_minutes}} minutes et ne fonctionne qu’une fois.{{/if}}</mj-text>
<mj-button href="{{url}}">Vérifier l’adresse e-mail</mj-button>
<mj-text mj-class="muted">Ou collez ce lien dans votre navigateur :<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>
<mj-text mj-class="muted">{{#if time}}Demandé le {{time}} depuis le réseau {{location}}, sur {{device}}. Si ce n’était pas vous, n’ouvrez pas le lien : quelqu’un d’autre essaie peut-être d’utiliser votre adresse.{{/if}}</mj-text>`,
        footer: 'Si vous n’êtes pas à l’origine de cette demande, vous pouvez ignorer cet e-mail.',
      }),
      text: `Vérifiez votre adresse e-mail

Ouvrez ce lien pour confirmer cette adresse e-mail pour votre compte {{app_name}} :

{{url}}

{{#if expires_in_minutes}}Le lien expire dans {{expires_in_minutes}} minutes et ne fonctionne qu’une fois.

{{/if}}{{#if time}}Demandé le {{time}} depuis le réseau {{location}}, sur {{device}}. Si ce n’était pas vous, n’ouvrez pas le lien : quelqu’un d’autre essaie peut-être d’utiliser votre adresse.

{{/if}}Si vous n’êtes pas à l’origine de cette demande, vous pouvez ignorer cet e-mail.
`,
    },
    de: {
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse für {{app_name}}',
      mjml: layout({
        lang: 'de',
        title: 'Bestätigen Sie Ihre E-Mail-Adresse',
        preview: 'Bestätigen Sie diese E-Mail-Adresse für {{app_name}}',
        content: `
<mj-text mj-class="heading">Bestätigen Sie Ihre E-Mail-Adresse</mj-text>
<mj-text>Bestätigen Sie über die Schaltfläche unten diese E-Mail-Adresse für Ihr {{app_name}}-Konto.{{#if expires_in_minutes}} Der Link läuft in {{expires_in_minutes}} Minuten ab und funktioniert nur einmal.{{/if}}</mj-text>
<mj-button href="{{url}}">E-Mail-Adresse bestätigen</mj-button>
<mj-text mj-class="muted">Oder fügen Sie diesen Link in Ihren Browser ein:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>
<mj-text mj-class="muted">{{#if time}}Angefordert am {{time}} aus dem Netz {{location}}, mit {{device}}. Wenn Sie das nicht waren, öffnen Sie den Link nicht: Vielleicht versucht jemand anderes, Ihre Adresse zu verwenden.{{/if}}</mj-text>`,
        footer: 'Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren.',
      }),
      text: `Bestätigen Sie Ihre E-Mail-Adresse

Öffnen Sie diesen Link, um diese E-Mail-Adresse für Ihr {{app_name}}-Konto zu bestätigen:

{{url}}

{{#if expires_in_minutes}}Der Link läuft in {{expires_in_minutes}} Minuten ab und funktioniert nur einmal.

{{/if}}{{#if time}}Angefordert am {{time}} aus dem Netz {{location}}, mit {{device}}. Wenn Sie das nicht waren, öffnen Sie den Link nicht: Vielleicht versucht jemand anderes, Ihre Adresse zu verwenden.

{{/if}}Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
