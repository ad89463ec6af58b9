import { layout } from './layout';
import { APP_NAME, EXPIRES_IN_MINUTES, type EmailTemplateDefinition } from './types';

export default {
  name: 'password_reset_code',
  description: 'A one-time code that lets the user set a new password.',
  variables: [
    { name: 'code', type: 'string', required: true, description: 'The one-time password reset code', sample: '123456' },
    APP_NAME,
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
  },
} as const satisfies EmailTemplateDefinition;
