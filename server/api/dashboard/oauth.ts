import { routeInstance, type ConsoleAuth } from './authenticate';
import { oauthApplicationsFor } from '../../oauth/endpoints';

export const dashboardOauthApplications = oauthApplicationsFor<ConsoleAuth>(routeInstance);
