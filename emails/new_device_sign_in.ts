import { layout } from './layout';
import { APP_NAME, type EmailTemplateDefinition } from './types';

export default {
  name: 'new_device_sign_in',
  description: 'A notice that the account was signed in to from a device not seen before.',
  variables: [
    { name: 'device', type: 'string', required: true, description: 'The browser and operating system of the sign-in', sample: 'Firefox on macOS' },
    { name: 'ip', type: 'string', required: true, description: 'The IP address of the sign-in', sample: '203.0.113.7' },
    { name: 'time', type: 'string', required: true, description: 'When the sign-in happened, formatted for the reader', sample: '22 November 2025, 10:24 UTC' },
    APP_NAME,
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
  },
} as const satisfies EmailTemplateDefinition;
