import { z } from 'zod';
import { MAILBOX_RE } from '../config';

/** sRGB relative luminance of a #rrggbb colour (WCAG 2.1). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
/** White text on the colour, as the hosted pages' buttons draw it, must reach WCAG AA (4.5:1). */
const contrastWithWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);

export const brandingSettingsSchema = z.strictObject({
  /** The name end users see (hosted pages, emails, SMS, authenticator apps); null: the instance's name. */
  application_name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullable().default(null),
  primary_color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour such as #4f46e5')
    .transform((v) => v.toLowerCase())
    .pipe(z.string()) // names the output a string in the generated API types
    .refine((v) => contrastWithWhite(v) >= 4.5, {
      message: 'white text on this colour is below WCAG AA contrast (4.5:1); pick a darker colour',
      params: { reason: 'low_contrast' },
    })
    .nullable(),
  support_email: z.email({ message: 'must be an email address' }).max(320).nullable(),
  /** The sender of the instance's emails (`Acme <no-reply@acme.com>`); null: the server's EMAIL_FROM. */
  email_from: z
    .string()
    .trim()
    .max(320)
    .regex(MAILBOX_RE, { message: 'must be an address, optionally with a name: "Acme <no-reply@acme.com>"' })
    .nullable()
    .default(null),
});
export type BrandingSettings = z.output<typeof brandingSettingsSchema>;
export const DEFAULT_BRANDING: BrandingSettings = { application_name: null, primary_color: null, support_email: null, email_from: null };

/** The name end users see: the branding's application name, else the instance's own. */
export const applicationName = (instanceName: string, settings: { branding: Pick<BrandingSettings, 'application_name'> }) =>
  settings.branding.application_name ?? instanceName;
