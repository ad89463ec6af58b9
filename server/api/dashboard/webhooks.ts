import { routeInstance, type ConsoleAuth } from './authenticate';
import { webhookEndpointsFor } from '../../webhooks/endpoints';

/** Dashboard: the route's instance (of an account the operator belongs to); audit names the operator. */
export const dashboardWebhooks = webhookEndpointsFor<ConsoleAuth>(routeInstance);
