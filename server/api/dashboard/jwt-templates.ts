import { routeInstance, type ConsoleAuth } from './authenticate';
import { jwtTemplateEndpointsFor } from '../../sessions/jwt-template-endpoints';

export const dashboardJwtTemplates = jwtTemplateEndpointsFor<ConsoleAuth>(routeInstance);
