import { layout } from './layout';
import { APP_NAME, BRAND_COLOR, LOGO_URL, SUPPORT_EMAIL, type EmailTemplateDefinition } from './types';

export default {
  name: 'organization_invitation',
  description: 'An invitation to join an organization.',
  variables: [
    {
      name: 'organization_name',
      type: 'string',
      required: true,
      description: 'The organization the user is invited to',
      sample: 'Acme Corp',
    },
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The link that accepts the invitation',
      sample: 'https://example.com/accept-invitation?ticket=sample',
    },
    { name: 'inviter_name', type: 'string', required: false, description: 'Who sent the invitation', sample: 'Ada Lovelace' },
    APP_NAME,
    LOGO_URL,
    BRAND_COLOR,
    SUPPORT_EMAIL,
  ],
  locales: {
    en: {
      subject: 'You’re invited to join {{organization_name}} on {{app_name}}',
      mjml: layout({
        lang: 'en',
        title: 'Join {{organization_name}} on {{app_name}}',
        preview: 'Accept your invitation to {{organization_name}}',
        content: `
<mj-text mj-class="heading">Join {{organization_name}}</mj-text>
<mj-text>{{#if inviter_name}}{{inviter_name}} invited you to join {{organization_name}} on {{app_name}}.{{else}}You’ve been invited to join {{organization_name}} on {{app_name}}.{{/if}}</mj-text>
<mj-button href="{{url}}">Accept invitation</mj-button>
<mj-text mj-class="muted">Or paste this link into your browser:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'If you weren’t expecting this invitation, you can ignore this email.',
      }),
      text: `Join {{organization_name}} on {{app_name}}

{{#if inviter_name}}{{inviter_name}} invited you to join {{organization_name}} on {{app_name}}.{{else}}You’ve been invited to join {{organization_name}} on {{app_name}}.{{/if}} Open this link to accept:

{{url}}

If you weren’t expecting this invitation, you can ignore this email.
`,
    },
    fr: {
      subject: 'Vous êtes invité à rejoindre {{organization_name}} sur {{app_name}}',
      mjml: layout({
        lang: 'fr',
        title: 'Rejoignez {{organization_name}} sur {{app_name}}',
        preview: 'Acceptez votre invitation à {{organization_name}}',
        content: `
<mj-text mj-class="heading">Rejoignez {{organization_name}}</mj-text>
<mj-text>{{#if inviter_name}}{{inviter_name}} vous invite à rejoindre {{organization_name}} sur {{app_name}}.{{else}}Vous êtes invité à rejoindre {{organization_name}} sur {{app_name}}.{{/if}}</mj-text>
<mj-button href="{{url}}">Accepter l’invitation</mj-button>
<mj-text mj-class="muted">Ou collez ce lien dans votre navigateur :<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'Si vous n’attendiez pas cette invitation, vous pouvez ignorer cet e-mail.',
      }),
      text: `Rejoignez {{organization_name}} sur {{app_name}}

{{#if inviter_name}}{{inviter_name}} vous invite à rejoindre {{organization_name}} sur {{app_name}}.{{else}}Vous êtes invité à rejoindre {{organization_name}} sur {{app_name}}.{{/if}} Ouvrez ce lien pour accepter :

{{url}}

Si vous n’attendiez pas cette invitation, vous pouvez ignorer cet e-mail.
`,
    },
    de: {
      subject: 'Sie sind eingeladen, {{organization_name}} auf {{app_name}} beizutreten',
      mjml: layout({
        lang: 'de',
        title: 'Treten Sie {{organization_name}} auf {{app_name}} bei',
        preview: 'Nehmen Sie Ihre Einladung zu {{organization_name}} an',
        content: `
<mj-text mj-class="heading">Treten Sie {{organization_name}} bei</mj-text>
<mj-text>{{#if inviter_name}}{{inviter_name}} hat Sie eingeladen, {{organization_name}} auf {{app_name}} beizutreten.{{else}}Sie wurden eingeladen, {{organization_name}} auf {{app_name}} beizutreten.{{/if}}</mj-text>
<mj-button href="{{url}}">Einladung annehmen</mj-button>
<mj-text mj-class="muted">Oder fügen Sie diesen Link in Ihren Browser ein:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'Wenn Sie diese Einladung nicht erwartet haben, können Sie diese E-Mail ignorieren.',
      }),
      text: `Treten Sie {{organization_name}} auf {{app_name}} bei

{{#if inviter_name}}{{inviter_name}} hat Sie eingeladen, {{organization_name}} auf {{app_name}} beizutreten.{{else}}Sie wurden eingeladen, {{organization_name}} auf {{app_name}} beizutreten.{{/if}} Öffnen Sie diesen Link, um die Einladung anzunehmen:

{{url}}

Wenn Sie diese Einladung nicht erwartet haben, können Sie diese E-Mail ignorieren.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
