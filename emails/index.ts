import type { TemplateVariable } from '../server/localization/render';
import invitation from './invitation';
import newDeviceSignIn from './new_device_sign_in';
import organizationInvitation from './organization_invitation';
import passwordResetCode from './password_reset_code';
import signInLink from './sign_in_link';
import smsTestMessage from './sms/test_message';
import smsVerificationCode from './sms/verification_code';
import verificationCode from './verification_code';
import verificationLink from './verification_link';

/**
 * The built-in templates, keyed by name, each with its copy per locale. To add a
 * language, add its key beside `en` in a template's `locales`; the mailer falls back
 * from `fr-CA` to `fr` to `en`.
 */
export const EMAIL_TEMPLATES = {
  verification_code: verificationCode,
  sign_in_link: signInLink,
  verification_link: verificationLink,
  password_reset_code: passwordResetCode,
  invitation,
  organization_invitation: organizationInvitation,
  new_device_sign_in: newDeviceSignIn,
} as const;

export const SMS_TEMPLATES = {
  verification_code: smsVerificationCode,
  test_message: smsTestMessage,
} as const;

export type EmailTemplateName = keyof typeof EMAIL_TEMPLATES;
export type SmsTemplateName = keyof typeof SMS_TEMPLATES;
export const EMAIL_TEMPLATE_NAMES = Object.keys(EMAIL_TEMPLATES) as EmailTemplateName[];
export const SMS_TEMPLATE_NAMES = Object.keys(SMS_TEMPLATES) as SmsTemplateName[];

type ValueOf<V extends TemplateVariable> = V['type'] extends 'number' ? number : string;
type Vars<T extends { variables: readonly TemplateVariable[] }> = T['variables'][number];

/** The data a template takes: its required variables, and the others optional. */
type TemplateDataOf<T extends { variables: readonly TemplateVariable[] }> = {
  [V in Vars<T> as V['required'] extends true ? V['name'] : never]: ValueOf<V>;
} & {
  [V in Vars<T> as V['required'] extends true ? never : V['name']]?: ValueOf<V> | null;
};

export type EmailDataOf<N extends EmailTemplateName> = TemplateDataOf<(typeof EMAIL_TEMPLATES)[N]>;
export type SmsDataOf<N extends SmsTemplateName> = TemplateDataOf<(typeof SMS_TEMPLATES)[N]>;
