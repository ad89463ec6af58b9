import { routeInstance, type ConsoleAuth } from './authenticate';
import { serverOrganizationEndpointsFor } from '../../organizations/endpoints';

/** Dashboard: the route's instance (of an account the operator belongs to). */
export const dashboardOrganizations = serverOrganizationEndpointsFor<ConsoleAuth>((auth) => routeInstance(auth).id);
