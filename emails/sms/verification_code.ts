import { APP_NAME, EXPIRES_IN_MINUTES, type SmsTemplateDefinition } from '../types';

export default {
  name: 'verification_code',
  description: 'A one-time code that verifies a phone number or signs in by SMS.',
  variables: [
    { name: 'code', type: 'string', required: true, description: 'The one-time verification code', sample: '123456' },
    APP_NAME,
    EXPIRES_IN_MINUTES,
  ],
  locales: {
    en: {
      body: '{{code}} is your {{app_name}} verification code.{{#if expires_in_minutes}} It expires in {{expires_in_minutes}} minutes.{{/if}} Don’t share it.',
    },
    fr: {
      body: '{{code}} est votre code de vérification {{app_name}}.{{#if expires_in_minutes}} Il expire dans {{expires_in_minutes}} minutes.{{/if}} Ne le partagez pas.',
    },
    de: {
      body: '{{code}} ist Ihr {{app_name}}-Bestätigungscode.{{#if expires_in_minutes}} Er läuft in {{expires_in_minutes}} Minuten ab.{{/if}} Geben Sie ihn nicht weiter.',
    },
  },
} as const satisfies SmsTemplateDefinition;
