import { APP_NAME, type SmsTemplateDefinition } from '../types';

export default {
  name: 'test_message',
  description: 'The test an operator sends from the SMS settings, to check the provider.',
  variables: [APP_NAME],
  locales: {
    en: { body: 'This is a test message from {{app_name}}: SMS delivery works.' },
    fr: { body: 'Ceci est un message de test de {{app_name}} : l’envoi de SMS fonctionne.' },
    de: { body: 'Dies ist eine Testnachricht von {{app_name}}: Der SMS-Versand funktioniert.' },
  },
} as const satisfies SmsTemplateDefinition;
