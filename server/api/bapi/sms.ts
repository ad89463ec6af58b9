import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { BapiAuth } from './authenticate';
import { receiveStatusCallback } from '../../sms/delivery';
import { smsEndpointsFor } from '../../sms/endpoints';

export const bapiSms = {
  ...smsEndpointsFor<BapiAuth>((auth) => auth.instance),
  /** Public: the provider calls it, and its signature over the URL and the fields is the credential. */
  twilioStatusCallback: endpoint<BapiAuth | null, Record<string, unknown>, { sms_id?: string }, 'instance_id'>({
    summary:
      'Receive Twilio’s delivery status callbacks (X-Twilio-Signature verified with the instance’s auth token; 403 signature_invalid)',
    audit: { unaudited: 'the provider’s status reports, recorded on the SMS they name' },
    form: true,
    body: z.record(z.string(), z.unknown()),
    params: z.object({ instance_id: z.string().min(1).max(64) }),
    query: z.object({
      sms_id: z
        .string()
        .regex(/^sms_[0-9A-Za-z]{1,60}$/)
        .optional()
        .meta({
          description: 'The SMS the callback reports on: part of the StatusCallback URL each send names, and of what Twilio signs.',
        }),
    }),
    response: z.object({
      object: z.literal('sms_status_callback'),
      received: z.literal(true),
      sms_id: z.string().nullable(),
      status: z.string().nullable(),
    }),
    handle: ({ deps, params, query, raw }) => receiveStatusCallback(deps, 'twilio', params.instance_id, query.sms_id, raw.body, raw.header),
  }),
};
