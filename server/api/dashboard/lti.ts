import { routeInstance, type ConsoleAuth } from './authenticate';
import { ltiPlatformsFor } from '../../lti/endpoints';

export const dashboardLtiPlatforms = ltiPlatformsFor<ConsoleAuth>(routeInstance);
