import type { BapiAuth } from './authenticate';
import { webhookEndpointsFor } from '../../webhooks/endpoints';

/** BAPI: the key's instance; audit names the key. */
export const bapiWebhooks = webhookEndpointsFor<BapiAuth>((auth) => auth.instance);
