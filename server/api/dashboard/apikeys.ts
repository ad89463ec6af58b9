import { routeInstance, type ConsoleAuth } from './authenticate';
import { apiKeyEndpointsFor } from '../../apikeys/endpoints';

/** Dashboard: the route's instance; audit names the operator. */
export const dashboardApiKeys = apiKeyEndpointsFor<ConsoleAuth>(routeInstance);
