import { routeInstance, type ConsoleAuth } from './authenticate';
import { socialProviderEndpointsFor } from '../../social/endpoints';

/** Dashboard: the route's instance (of an account the operator belongs to). */
export const dashboardSocialProviders = socialProviderEndpointsFor<ConsoleAuth>(routeInstance);
