import { routeInstance, type ConsoleAuth } from './authenticate';
import { billingEndpointsFor } from '../../billing/endpoints';

export const dashboardBilling = billingEndpointsFor<ConsoleAuth>(routeInstance);
