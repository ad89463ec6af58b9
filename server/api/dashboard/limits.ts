import { routeInstance, type ConsoleAuth } from './authenticate';
import { limitEndpointsFor } from '../../limits/endpoints';

/** Dashboard: the route's instance (of an account the operator belongs to). */
export const dashboardLimits = limitEndpointsFor<ConsoleAuth>(routeInstance);
