/**
 * The event-type catalog as OpenAPI 3.1's top-level `webhooks` object: one
 * entry per type, the request a receiver gets (the event envelope with `data` set to the type's
 * schema, and the three Standard Webhooks headers), so receivers can generate their types.
 */
import type { EventType } from '../../shared/webhooks/event-types/index.ts';
import { JSON_TYPE, type Json } from './components.ts';

const header = (description: string): Json => ({ required: true, description, schema: { type: 'string' } });

export function eventWebhooks(types: readonly EventType[]): Json {
  return Object.fromEntries(
    types.map((type) => [
      type.name,
      {
        post: {
          operationId: `webhook.${type.name}`,
          summary: type.description ?? `The ${type.name} event`,
          ...(type.deprecated ? { deprecated: true } : {}),
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              ...header('The delivery id: the same on every attempt; deduplicate on it.'),
            },
            { name: 'webhook-timestamp', in: 'header', ...header('Integer seconds since the epoch of this attempt.') },
            {
              name: 'webhook-signature',
              in: 'header',
              ...header(
                'Space-separated `v1,` (HMAC-SHA256) or `v1a,` (Ed25519) signatures of `<id>.<timestamp>.<body>`.',
              ),
            },
          ],
          requestBody: {
            required: true,
            content: {
              [JSON_TYPE]: {
                schema: {
                  type: 'object',
                  required: ['data', 'id', 'timestamp', 'type'],
                  properties: {
                    data: type.schema ?? {},
                    id: { type: 'string', description: 'The event id (`evt_…`).' },
                    timestamp: { type: 'string', format: 'date-time' },
                    type: { type: 'string', const: type.name },
                  },
                },
                ...(type.examples.length > 0
                  ? {
                      examples: Object.fromEntries(
                        type.examples.map((example, index) => [
                          `example${index + 1}`,
                          {
                            value: {
                              data: example,
                              id: 'evt_…',
                              timestamp: '2026-01-01T00:00:00.000Z',
                              type: type.name,
                            },
                          },
                        ]),
                      ),
                    }
                  : {}),
              },
            },
          },
          responses: { '2XX': { description: 'Received (answer after verifying the signature; any 2xx).' } },
        },
      },
    ]),
  );
}
