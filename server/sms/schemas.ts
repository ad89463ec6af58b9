import { z } from 'zod';
import { phoneNumber } from '../email/addresses';
import { isCallingCode } from './country-codes';

const callingCode = z
  .string()
  .regex(/^\+?\d{1,3}$/, 'a country calling code such as 1, 44 or 33')
  .transform((v) => v.replace(/^\+/, ''))
  .refine(isCallingCode, { message: 'is not a country calling code in use', params: { reason: 'invalid_country_code' } });

export const updateSmsSettingsBody = z.strictObject({
  provider: z.enum(['twilio']).optional(),
  account_id: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'a Twilio Account SID (AC followed by 32 hex digits)')
    .nullable()
    .optional(),
  auth_token: z
    .string()
    .min(1)
    .max(255)
    .nullable()
    .optional()
    .meta({ description: 'Write-only: encrypted at rest, answered only as auth_token_set.' }),
  from_number: phoneNumber.nullable().optional().meta({ description: 'The sender (E.164); or set messaging_service_id.' }),
  messaging_service_id: z
    .string()
    .regex(/^MG[0-9a-fA-F]{32}$/, 'a Twilio Messaging Service SID (MG followed by 32 hex digits)')
    .nullable()
    .optional()
    .meta({ description: 'A Twilio messaging service, which picks the sender; used instead of from_number when set.' }),
  api_base_url: z.string().max(2048).nullable().optional().meta({
    description:
      'The provider API base; null: the provider’s own. For tests and proxies; a private or non-https one is refused like a webhook target (422 invalid_url).',
  }),
  allowed_country_codes: z.array(callingCode).max(250).optional().meta({
    description:
      'Country calling codes SMS may go to (`1`, `44`); empty: every country. A code not in use is refused (422 invalid_country_code).',
  }),
});

export const smsSettingsSchema = z
  .object({
    object: z.literal('sms_settings'),
    provider: z.enum(['twilio']),
    configured: z.boolean(),
    account_id: z.string().nullable(),
    auth_token_set: z.boolean(),
    from_number: z.string().nullable(),
    messaging_service_id: z.string().nullable(),
    api_base_url: z.string().nullable(),
    allowed_country_codes: z.array(z.string()),
    status_callback_url: z.string(),
    updated_at: z.number().int().nullable(),
  })
  .meta({ id: 'SmsSettings' });

export const testSendBody = z.strictObject({ to: phoneNumber });
