import { routeInstance, type ConsoleAuth } from './authenticate';
import { oauthApplicationsFor, oauthInitialAccessTokensFor } from '../../oauth/endpoints';

export const dashboardOauthApplications = oauthApplicationsFor<ConsoleAuth>(routeInstance);
export const dashboardOauthInitialAccessTokens = oauthInitialAccessTokensFor<ConsoleAuth>(routeInstance);
