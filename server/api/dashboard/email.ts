import { routeInstance, type ConsoleAuth } from './authenticate';
import { messageEndpointsFor } from '../../email/endpoints';

export const dashboardMessages = messageEndpointsFor<ConsoleAuth>(routeInstance);
