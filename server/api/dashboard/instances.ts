import { z } from 'zod';
import { bytesResult, endpoint } from '../../http/endpoint';
import { routeInstance, type ConsoleAuth } from './authenticate';
import type { FapiAuth } from '../fapi/authenticate';
import { brandingView, deleteLogo, logoImage, logoUploadSchema, setLogo } from '../../instances/branding';
import { auditContextOf } from '../../http/actor';
import { brandingSettingsSchema } from '../../instances/branding-settings';
import { getInstance, updateInstanceSettings } from '../../instances/instances';
import { instanceSettings } from '../../instances/settings';

export const brandingSchema = z
  .object({
    application_name: z.string(),
    logo_url: z.string().nullable(),
    primary_color: z.string().nullable(),
    support_email: z.string().nullable(),
  })
  .meta({ id: 'Branding' });

/** Dashboard: the instance's branding; the name, colour and support address change with PATCH …/branding (or …/settings {branding}). */
export const getBrandingEndpoint = endpoint<ConsoleAuth>({
  summary: 'The instance’s branding: application name (the instance’s), logo URL, primary colour, support email',
  response: brandingSchema,
  handle: async ({ deps, auth }) => {
    const instance = routeInstance(auth);
    return brandingView(deps, instance, (await getInstance(deps, instance.id)).name);
  },
});

export const patchBrandingEndpoint = endpoint<ConsoleAuth, z.output<ReturnType<typeof brandingSettingsSchema.partial>>>({
  summary: 'Change the branding: application name, primary colour, support email (only the fields given change; null restores the default)',
  audit: { action: 'branding.updated', recordedBy: 'domain' },
  body: brandingSettingsSchema.partial(),
  response: brandingSchema,
  handle: async ({ deps, auth, body, actor }) => {
    const instance = routeInstance(auth);
    await updateInstanceSettings(deps, instance.id, { branding: body }, auditContextOf(actor), 'branding.updated');
    const fresh = await getInstance(deps, instance.id);
    return brandingView(deps, { ...instance, settings: instanceSettings(fresh.settings) }, fresh.name);
  },
});

export const putLogoEndpoint = endpoint<ConsoleAuth, z.output<typeof logoUploadSchema>>({
  summary: 'Upload the logo: {content_type: image/png|jpeg|webp|svg+xml, data: base64}, at most 512 KiB, its bytes checked against the type',
  audit: { action: 'branding.logo_updated' },
  body: logoUploadSchema,
  response: z.object({ version: z.string(), content_type: z.string(), size: z.number().int() }),
  handle: ({ deps, auth, body }) => setLogo(deps, routeInstance(auth).id, body),
});

export const deleteLogoEndpoint = endpoint<ConsoleAuth>({
  summary: 'Remove the logo',
  audit: { action: 'branding.logo_deleted' },
  response: z.object({ object: z.literal('logo'), deleted: z.literal(true) }),
  handle: async ({ deps, auth }) => {
    await deleteLogo(deps, routeInstance(auth).id);
    return { object: 'logo' as const, deleted: true as const };
  },
});

/** FAPI, public: the logo image at its version (immutable caching, ETag, 304). */
export const logoImageEndpoint = endpoint<FapiAuth>({
  summary: 'The instance’s logo image (the URL names its version: cached for a year); 304 on a matching If-None-Match',
  response: z.unknown(),
  handle: async ({ deps, auth, params, raw }) => {
    const { notModified, row, headers } = await logoImage(deps, auth.instance.id, params.version!, raw.header('if-none-match'));
    return notModified ? bytesResult(new Uint8Array(0), row.contentType, headers, 304) : bytesResult(row.bytes, row.contentType, headers);
  },
});
