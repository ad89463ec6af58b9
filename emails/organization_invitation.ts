import { layout } from './layout';
import { APP_NAME, type EmailTemplateDefinition } from './types';

export default {
  name: 'organization_invitation',
  description: 'An invitation to join an organization.',
  variables: [
    { name: 'organization_name', type: 'string', required: true, description: 'The organization the user is invited to', sample: 'Acme Corp' },
    { name: 'url', type: 'url', required: true, description: 'The link that accepts the invitation', sample: 'https://example.com/accept-invitation?ticket=sample' },
    { name: 'inviter_name', type: 'string', required: false, description: 'Who sent the invitation', sample: 'Ada Lovelace' },
    APP_NAME,
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
  },
} as const satisfies EmailTemplateDefinition;
