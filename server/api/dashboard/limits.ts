import { routeInstance, type ConsoleAuth } from './authenticate';
import { protectionEndpointsFor } from '../../limits/endpoints';

/** Dashboard: the route's instance (of an account the operator belongs to). */
export const dashboardProtection = protectionEndpointsFor<ConsoleAuth>(routeInstance);
