import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, type EmailTemplateDefinition } from './types';

export default {
  name: 'invitation',
  description: 'An invitation to sign up to the application.',
  variables: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The link that accepts the invitation',
      sample: 'https://example.com/sign-up?invitation=sample',
    },
    { name: 'inviter_name', type: 'string', required: false, description: 'Who sent the invitation', sample: 'Ada Lovelace' },
    APP_NAME,
    LOGO_URL,
    BRAND_COLOR,
    SUPPORT_EMAIL,
  ],
  locales: {
    en: {
      subject: '{{#if inviter_name}}{{inviter_name}} invited you to {{app_name}}{{else}}You’re invited to {{app_name}}{{/if}}',
      mjml: layout({
        lang: 'en',
        title: 'You’re invited to {{app_name}}',
        preview: 'Accept your invitation to {{app_name}}',
        content: `
<mj-text mj-class="heading">You’re invited to {{app_name}}</mj-text>
<mj-text>{{#if inviter_name}}{{inviter_name}} invited you to join {{app_name}}.{{else}}You’ve been invited to join {{app_name}}.{{/if}} Accept the invitation to create your account.</mj-text>
<mj-button href="{{url}}">Accept invitation</mj-button>
<mj-text mj-class="muted">Or paste this link into your browser:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'If you weren’t expecting this invitation, you can ignore this email.',
      }),
      text: `You’re invited to {{app_name}}

{{#if inviter_name}}{{inviter_name}} invited you to join {{app_name}}.{{else}}You’ve been invited to join {{app_name}}.{{/if}} Open this link to accept the invitation and create your account:

{{url}}

If you weren’t expecting this invitation, you can ignore this email.
`,
    },
    fr: {
      subject: '{{#if inviter_name}}{{inviter_name}} vous invite sur {{app_name}}{{else}}Vous êtes invité sur {{app_name}}{{/if}}',
      mjml: layout({
        lang: 'fr',
        title: 'Vous êtes invité sur {{app_name}}',
        preview: 'Acceptez votre invitation sur {{app_name}}',
        content: `
<mj-text mj-class="heading">Vous êtes invité sur {{app_name}}</mj-text>
<mj-text>{{#if inviter_name}}{{inviter_name}} vous invite à rejoindre {{app_name}}.{{else}}Vous êtes invité à rejoindre {{app_name}}.{{/if}} Acceptez l’invitation pour créer votre compte.</mj-text>
<mj-button href="{{url}}">Accepter l’invitation</mj-button>
<mj-text mj-class="muted">Ou collez ce lien dans votre navigateur :<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'Si vous n’attendiez pas cette invitation, vous pouvez ignorer cet e-mail.',
      }),
      text: `Vous êtes invité sur {{app_name}}

{{#if inviter_name}}{{inviter_name}} vous invite à rejoindre {{app_name}}.{{else}}Vous êtes invité à rejoindre {{app_name}}.{{/if}} Ouvrez ce lien pour accepter l’invitation et créer votre compte :

{{url}}

Si vous n’attendiez pas cette invitation, vous pouvez ignorer cet e-mail.
`,
    },
    de: {
      subject: '{{#if inviter_name}}{{inviter_name}} hat Sie zu {{app_name}} eingeladen{{else}}Sie sind zu {{app_name}} eingeladen{{/if}}',
      mjml: layout({
        lang: 'de',
        title: 'Sie sind zu {{app_name}} eingeladen',
        preview: 'Nehmen Sie Ihre Einladung zu {{app_name}} an',
        content: `
<mj-text mj-class="heading">Sie sind zu {{app_name}} eingeladen</mj-text>
<mj-text>{{#if inviter_name}}{{inviter_name}} hat Sie eingeladen, {{app_name}} beizutreten.{{else}}Sie wurden eingeladen, {{app_name}} beizutreten.{{/if}} Nehmen Sie die Einladung an, um Ihr Konto zu erstellen.</mj-text>
<mj-button href="{{url}}">Einladung annehmen</mj-button>
<mj-text mj-class="muted">Oder fügen Sie diesen Link in Ihren Browser ein:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'Wenn Sie diese Einladung nicht erwartet haben, können Sie diese E-Mail ignorieren.',
      }),
      text: `Sie sind zu {{app_name}} eingeladen

{{#if inviter_name}}{{inviter_name}} hat Sie eingeladen, {{app_name}} beizutreten.{{else}}Sie wurden eingeladen, {{app_name}} beizutreten.{{/if}} Öffnen Sie diesen Link, um die Einladung anzunehmen und Ihr Konto zu erstellen:

{{url}}

Wenn Sie diese Einladung nicht erwartet haben, können Sie diese E-Mail ignorieren.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
