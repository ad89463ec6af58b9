import { layout } from './layout';
import { APP_NAME, EXPIRES_IN_MINUTES, type EmailTemplateDefinition } from './types';

export default {
  name: 'verification_code',
  description: 'A one-time code that verifies an email address (sign-up, sign-in by code, adding an address).',
  variables: [
    { name: 'code', type: 'string', required: true, description: 'The one-time verification code', sample: '123456' },
    APP_NAME,
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
  },
} as const satisfies EmailTemplateDefinition;
