import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, EXPIRES_IN_MINUTES, LINK_REQUEST, type EmailTemplateDefinition } from './types';

export default {
  name: 'sign_in_link',
  description: 'A one-time link that signs the user in (magic link).',
  variables: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The one-time sign-in link',
      sample: 'https://example.com/sign-in/verify?token=sample',
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
      subject: 'Sign in to {{app_name}}',
      mjml: layout({
        lang: 'en',
        title: 'Sign in to {{app_name}}',
        preview: 'Your sign-in link for {{app_name}}',
        content: `
<mj-text mj-class="heading">Sign in to {{app_name}}</mj-text>
<mj-text>Use the button below to sign in.{{#if expires_in_minutes}} The link expires in {{expires_in_minutes}} minutes and works once.{{/if}}</mj-text>
<mj-button href="{{url}}">Sign in</mj-button>
<mj-text mj-class="muted">Or paste this link into your browser:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>
<mj-text mj-class="muted">{{#if time}}Asked for on {{time}} from network {{location}}, on {{device}}. If this wasn’t you, do not open the link: someone else may be trying to sign in to your account.{{/if}}</mj-text>`,
        footer: 'If you didn’t try to sign in, you can ignore this email.',
      }),
      text: `Sign in to {{app_name}}

Open this link to sign in:

{{url}}

{{#if expires_in_minutes}}The link expires in {{expires_in_minutes}} minutes and works once.

{{/if}}{{#if time}}Asked for on {{time}} from network {{location}}, on {{device}}. If this wasn’t you, do not open the link: someone else may be trying to sign in to your account.

{{/if}}If you didn’t try to sign in, you can ignore this email.
`,
    },
    fr: {
      subject: 'Connexion à {{app_name}}',
      mjml: layout({
        lang: 'fr',
        title: 'Connexion à {{app_name}}',
        preview: 'Votre lien de connexion à {{app_name}}',
        content: `
<mj-text mj-class="heading">Connexion à {{app_name}}</mj-text>
<mj-text>Utilisez le bouton ci-dessous pour vous connecter.{{#if expires_in_minutes}} Le lien expire dans {{expires_in_minutes}} minutes et ne fonctionne qu’une fois.{{/if}}</mj-text>
<mj-button href="{{url}}">Se connecter</mj-button>
<mj-text mj-class="muted">Ou collez ce lien dans votre navigateur :<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>
<mj-text mj-class="muted">{{#if time}}Demandé le {{time}} depuis le réseau {{location}}, sur {{device}}. Si ce n’était pas vous, n’ouvrez pas le lien : quelqu’un d’autre essaie peut-être de se connecter à votre compte.{{/if}}</mj-text>`,
        footer: 'Si vous n’avez pas essayé de vous connecter, vous pouvez ignorer cet e-mail.',
      }),
      text: `Connexion à {{app_name}}

Ouvrez ce lien pour vous connecter :

{{url}}

{{#if expires_in_minutes}}Le lien expire dans {{expires_in_minutes}} minutes et ne fonctionne qu’une fois.

{{/if}}{{#if time}}Demandé le {{time}} depuis le réseau {{location}}, sur {{device}}. Si ce n’était pas vous, n’ouvrez pas le lien : quelqu’un d’autre essaie peut-être de se connecter à votre compte.

{{/if}}Si vous n’avez pas essayé de vous connecter, vous pouvez ignorer cet e-mail.
`,
    },
    de: {
      subject: 'Bei {{app_name}} anmelden',
      mjml: layout({
        lang: 'de',
        title: 'Bei {{app_name}} anmelden',
        preview: 'Ihr Anmeldelink für {{app_name}}',
        content: `
<mj-text mj-class="heading">Bei {{app_name}} anmelden</mj-text>
<mj-text>Melden Sie sich über die Schaltfläche unten an.{{#if expires_in_minutes}} Der Link läuft in {{expires_in_minutes}} Minuten ab und funktioniert nur einmal.{{/if}}</mj-text>
<mj-button href="{{url}}">Anmelden</mj-button>
<mj-text mj-class="muted">Oder fügen Sie diesen Link in Ihren Browser ein:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>
<mj-text mj-class="muted">{{#if time}}Angefordert am {{time}} aus dem Netz {{location}}, mit {{device}}. Wenn Sie das nicht waren, öffnen Sie den Link nicht: Vielleicht versucht jemand anderes, sich bei Ihrem Konto anzumelden.{{/if}}</mj-text>`,
        footer: 'Wenn Sie nicht versucht haben, sich anzumelden, können Sie diese E-Mail ignorieren.',
      }),
      text: `Bei {{app_name}} anmelden

Öffnen Sie diesen Link, um sich anzumelden:

{{url}}

{{#if expires_in_minutes}}Der Link läuft in {{expires_in_minutes}} Minuten ab und funktioniert nur einmal.

{{/if}}{{#if time}}Angefordert am {{time}} aus dem Netz {{location}}, mit {{device}}. Wenn Sie das nicht waren, öffnen Sie den Link nicht: Vielleicht versucht jemand anderes, sich bei Ihrem Konto anzumelden.

{{/if}}Wenn Sie nicht versucht haben, sich anzumelden, können Sie diese E-Mail ignorieren.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
