import { routeInstance, type ConsoleAuth } from './authenticate';
import { protectionEndpointsFor } from '../../protection/endpoints';

export const dashboardProtection = protectionEndpointsFor<ConsoleAuth>(routeInstance);
