import type { Router } from 'express';
import { z } from 'zod';
import { contextOf } from '@tracker/authz';
import { WebhookCreate, WebhookUpdate } from '@tracker/contracts';
import { parseBody, parseId } from '@tracker/kit';
import type { NotificationsDeps } from '../domain/deps';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from '../domain/manage-webhooks.use-case';
import { listDeliveries, pingWebhook, retryDelivery } from '../domain/webhook-deliveries.use-case';
import { parseDeliveriesQuery, parseDeliveryId } from './deliveries-query';
import { deliveryJson, webhookJson } from './json';

/** Ping and retry take no body: none (a request without one reaches the route as an empty buffer), or `{}`. */
const NoBody = z.strictObject({});
const takeNoBody = (body: unknown) => parseBody(NoBody, Buffer.isBuffer(body) || body === undefined ? {} : body);

export function webhooksRoutes(router: Router, deps: NotificationsDeps): void {
  router.post('/api/v1/webhooks', async (req, res) => {
    const input = parseBody(WebhookCreate, req.body);
    const { webhook, secret } = await createWebhook(deps, contextOf(res), input);
    res.status(201).json({ ...webhookJson(webhook), secret });
  });

  router.get('/api/v1/webhooks', async (_req, res) => {
    res.json((await listWebhooks(deps, contextOf(res))).map(webhookJson));
  });

  router.get('/api/v1/webhooks/:webhook_id', async (req, res) => {
    res.json(webhookJson(await getWebhook(deps, contextOf(res), parseId('webhook_id', req.params.webhook_id))));
  });

  router.patch('/api/v1/webhooks/:webhook_id', async (req, res) => {
    const id = parseId('webhook_id', req.params.webhook_id);
    const input = parseBody(WebhookUpdate, req.body);
    res.json(webhookJson(await updateWebhook(deps, contextOf(res), id, input)));
  });

  router.delete('/api/v1/webhooks/:webhook_id', async (req, res) => {
    const id = parseId('webhook_id', req.params.webhook_id);
    await deleteWebhook(deps, contextOf(res), id);
    res.json({ id, deleted: true });
  });

  router.get('/api/v1/webhooks/:webhook_id/deliveries', async (req, res) => {
    const id = parseId('webhook_id', req.params.webhook_id);
    const query = parseDeliveriesQuery(req.query as Record<string, unknown>);
    const page = await listDeliveries(deps, contextOf(res), id, query);
    res.json({ items: page.items.map(deliveryJson), next_before_id: page.nextBeforeId });
  });

  router.post('/api/v1/webhooks/:webhook_id/ping', async (req, res) => {
    const id = parseId('webhook_id', req.params.webhook_id);
    takeNoBody(req.body);
    res.status(201).json(deliveryJson(await pingWebhook(deps, contextOf(res), id)));
  });

  router.post('/api/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry', async (req, res) => {
    const id = parseId('webhook_id', req.params.webhook_id);
    const deliveryId = parseDeliveryId(req.params.delivery_id);
    takeNoBody(req.body);
    res.json(deliveryJson(await retryDelivery(deps, contextOf(res), id, deliveryId)));
  });
}
