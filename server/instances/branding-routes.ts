import { z } from 'zod';
import { bytesResult, endpoint } from '../http/endpoint';
import { routeInstance, type ConsoleAuth } from '../operators/console-auth';
import type { FapiAuth } from '../sessions/fapi-auth';
import { brandingView, deleteLogo, logoImage, logoUploadSchema, setLogo } from './branding';
import { getInstance } from './instances';

export const brandingSchema = z
  .object({
    application_name: z.string(),
    logo_url: z.string().nullable(),
    primary_color: z.string().nullable(),
    support_email: z.string().nullable(),
  })
  .meta({ id: 'Branding' });

/** Dashboard: the instance's branding; the colour and support address change with PATCH …/settings {branding}. */
export const getBrandingEndpoint = endpoint<ConsoleAuth>({
  summary: 'The instance’s branding: application name (the instance’s), logo URL, primary colour, support email',
  response: brandingSchema,
  handle: async ({ deps, auth }) => {
    const instance = routeInstance(auth);
    return brandingView(deps, instance, (await getInstance(deps, instance.id)).name);
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
