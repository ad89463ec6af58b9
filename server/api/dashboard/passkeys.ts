import { routeInstance, type ConsoleAuth } from './authenticate';
import { userPasskeyEndpointsFor } from '../../passkeys/endpoints';

export const dashboardPasskeys = userPasskeyEndpointsFor<ConsoleAuth>(routeInstance);
