/**
 * The url forms an endpoint accepts, in words: one text for the public shapes, the OpenAPI
 * document and the GraphQL schema, so the API faces say the same.
 */

/** What every face says of an endpoint's url. */
export const URL_DESCRIPTION =
  'Where deliveries go: an HTTP receiver (https://…) or a broker: amqps://user:pass@host/vhost?exchange=…&routingKey=…, ' +
  'tls://user:pass@host/<subject> (NATS JetStream), mqtts://user:pass@host/<topic>, rediss://user:pass@host/<db>?stream=…[&maxlen=…]. ' +
  'The plain schemes (http, amqp, nats, mqtt, redis) only where webhooks.allowHttp is on. ' +
  "A broker's credentials are sealed at rest and always shown as *** (user name too); " +
  'on update, *** keeps the stored credentials for the same scheme, host and port.';
