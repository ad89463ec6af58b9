import { z } from 'zod';
import { PORTAL_INTENTS } from '../db/schema';

const url = z.string().trim().min(1).max(2048);

export const createPortalLinkBody = z.strictObject({
  intent: z
    .enum(PORTAL_INTENTS)
    .meta({ description: 'What the portal session may set up: sso, dsync, domain_verification or audit_logs.' }),
  return_url: url
    .meta({ description: 'Where "Back to the app" leads; an allowed redirect URL of the instance (422 redirect_url_not_allowed).' })
    .optional(),
  success_url: url
    .meta({ description: 'Where the admin lands when the setup is done; an allowed redirect URL of the instance.' })
    .optional(),
});
export type CreatePortalLinkInput = z.output<typeof createPortalLinkBody>;

export const portalLinkSchema = z
  .object({
    object: z.literal('portal_link'),
    id: z.string(),
    organization_id: z.string(),
    intent: z.enum(PORTAL_INTENTS),
    /** `{fapi_url}/portal/open#<token>`: single use, valid 5 minutes. */
    link: z.string(),
    expires_at: z.number().int(),
  })
  .meta({ id: 'PortalLink' });
