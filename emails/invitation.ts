import { layout } from './layout';
import { APP_NAME, type EmailTemplateDefinition } from './types';

export default {
  name: 'invitation',
  description: 'An invitation to sign up to the application.',
  variables: [
    { name: 'url', type: 'url', required: true, description: 'The link that accepts the invitation', sample: 'https://example.com/sign-up?invitation=sample' },
    { name: 'inviter_name', type: 'string', required: false, description: 'Who sent the invitation', sample: 'Ada Lovelace' },
    APP_NAME,
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
  },
} as const satisfies EmailTemplateDefinition;
