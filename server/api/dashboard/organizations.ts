import { routeInstance, type ConsoleAuth } from './authenticate';
import { serverOrganizationEndpointsFor } from '../../organizations/endpoints';
import { portalLinkEndpointFor } from '../../portal/endpoints';

/** Dashboard: the route's instance (of an account the operator belongs to). */
export const dashboardOrganizations = serverOrganizationEndpointsFor<ConsoleAuth>((auth) => routeInstance(auth).id);

/** Dashboard: an admin portal link the operator sends to the organization's IT admin (issue 49). */
export const dashboardPortalLink = portalLinkEndpointFor<ConsoleAuth>(
  (auth) => routeInstance(auth).id,
  (_auth, params) => params.id,
);
