import { DeliveriesQuery } from '@tracker/contracts';
import { parseId, parseQuery } from '@tracker/kit';

/** The query of GET /api/v1/webhooks/{id}/deliveries (contracts DeliveriesQuery): each parameter at most once, numbers as digits, nothing unknown (422 naming it). */
export const parseDeliveriesQuery = (query: Record<string, unknown>): DeliveriesQuery => parseQuery(DeliveriesQuery, query, { text: ['status'] });

/** A delivery id in the path: 1 to 2^53 - 1 (deliveries outgrow int4), anything else 422. */
export const parseDeliveryId = (raw: unknown): number => parseId('delivery_id', raw, Number.MAX_SAFE_INTEGER);
