import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { brandingSchema, brandingView, deleteLogo, logoUploadSchema, setLogo } from '../../instances/branding';
import { auditContextOf } from '../../http/actor';
import { brandingSettingsSchema } from '../../instances/branding-settings';
import { getInstance, updateInstanceSettings } from '../../instances/instances';
import { instanceSettings } from '../../instances/settings';

export const branding = {
  /** Dashboard: the instance's branding; the name, colour and support address change with PATCH …/branding (or …/settings {branding}). */
  get: endpoint<ConsoleAuth>({
    summary: 'The instance’s branding: application name (the instance’s), logo URL, primary colour, support email',
    response: brandingSchema,
    handle: async ({ deps, auth }) => {
      const instance = routeInstance(auth);
      return brandingView(deps, instance, (await getInstance(deps, instance.id)).name);
    },
  }),
  update: endpoint<ConsoleAuth, z.output<ReturnType<typeof brandingSettingsSchema.partial>>>({
    summary:
      'Change the branding: application name, primary colour, support email (only the fields given change; null restores the default)',
    audit: { action: 'branding.updated', recordedBy: 'domain' },
    body: brandingSettingsSchema.partial(),
    response: brandingSchema,
    handle: async ({ deps, auth, body, actor }) => {
      const instance = routeInstance(auth);
      await updateInstanceSettings(deps, instance.id, { branding: body }, auditContextOf(actor), 'branding.updated');
      const fresh = await getInstance(deps, instance.id);
      return brandingView(deps, { ...instance, settings: instanceSettings(fresh.settings) }, fresh.name);
    },
  }),
  setLogo: endpoint<ConsoleAuth, z.output<typeof logoUploadSchema>>({
    summary:
      'Upload the logo: {content_type: image/png|jpeg|webp|svg+xml, data: base64}, at most 512 KiB, its bytes checked against the type',
    audit: { action: 'branding.logo_updated' },
    body: logoUploadSchema,
    response: z.object({ version: z.string(), content_type: z.string(), size: z.number().int() }),
    handle: ({ deps, auth, body }) => setLogo(deps, routeInstance(auth).id, body),
  }),
  deleteLogo: endpoint<ConsoleAuth>({
    summary: 'Remove the logo',
    audit: { action: 'branding.logo_deleted' },
    response: z.object({ object: z.literal('logo'), deleted: z.literal(true) }),
    handle: async ({ deps, auth }) => {
      await deleteLogo(deps, routeInstance(auth).id);
      return { object: 'logo' as const, deleted: true as const };
    },
  }),
};
