import type { BapiAuth } from './authenticate';
import { serverOrganizationEndpointsFor } from '../../organizations/endpoints';
import { portalLinkEndpointFor } from '../../portal/endpoints';

/** BAPI: the key's instance. */
export const bapiOrganizations = serverOrganizationEndpointsFor<BapiAuth>((auth) => auth.instance.id);

/** BAPI: an admin portal link for the path's organization (issue 49). */
export const bapiPortalLink = portalLinkEndpointFor<BapiAuth>(
  (auth) => auth.instance.id,
  (_auth, params) => params.id,
);
