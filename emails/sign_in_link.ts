import { layout } from './layout';
import { APP_NAME, EXPIRES_IN_MINUTES, type EmailTemplateDefinition } from './types';

export default {
  name: 'sign_in_link',
  description: 'A one-time link that signs the user in (magic link).',
  variables: [
    { name: 'url', type: 'url', required: true, description: 'The one-time sign-in link', sample: 'https://example.com/sign-in/verify?token=sample' },
    APP_NAME,
    EXPIRES_IN_MINUTES,
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
<mj-text mj-class="muted">Or paste this link into your browser:<br /><a href="{{url}}" style="color:#3f3f46;word-break:break-all;">{{url}}</a></mj-text>`,
        footer: 'If you didn’t try to sign in, you can ignore this email.',
      }),
      text: `Sign in to {{app_name}}

Open this link to sign in:

{{url}}

{{#if expires_in_minutes}}The link expires in {{expires_in_minutes}} minutes and works once.

{{/if}}If you didn’t try to sign in, you can ignore this email.
`,
    },
  },
} as const satisfies EmailTemplateDefinition;
