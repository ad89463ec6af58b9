import { z } from 'zod';
import { smsSchema } from '../email/endpoints';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { smsSettingsSchema, testSendBody, updateSmsSettingsBody } from './schemas';
import { getSmsSettings, updateSmsSettings } from './settings';
import { sendTestSms } from './test-send';

type Instance = { id: string; environment: 'test' | 'live' };

/** The SMS provider settings and the test send, on a surface that manages a whole instance (BAPI, dashboard). */
export function smsEndpointsFor<Auth>(instanceOf: (auth: Auth) => Instance) {
  return {
    getSettings: endpoint<Auth>({
      summary:
        'The SMS provider settings: account, sender, whether the auth token is set (never the token), the country allow-list and the status callback URL',
      response: smsSettingsSchema,
      handle: ({ deps, auth }) => getSmsSettings(deps, instanceOf(auth).id),
    }),
    updateSettings: endpoint<Auth, z.output<typeof updateSmsSettingsBody>>({
      summary:
        'Set the SMS provider’s account id, auth token (write-only, encrypted at rest), sender or messaging service, API base and the country allow-list',
      audit: { action: 'sms_settings.updated', recordedBy: 'domain' },
      body: updateSmsSettingsBody,
      response: smsSettingsSchema,
      handle: ({ deps, auth, body, actor }) => updateSmsSettings(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    testSend: endpoint<Auth, z.output<typeof testSendBody>>({
      summary:
        'Text a test message to a number through the provider and answer the SMS with its delivery status (409 not_configured without a provider)',
      audit: { action: 'sms.test_sent', recordedBy: 'domain' },
      body: testSendBody,
      response: smsSchema,
      handle: ({ deps, auth, body, actor }) => sendTestSms(deps, instanceOf(auth), body.to, auditContextOf(actor)),
    }),
  };
}
