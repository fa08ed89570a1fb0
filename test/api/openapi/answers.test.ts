/**
 * The OpenAPI description against the running service: every answer of the product routes
 * (webhooks, events, deliveries, event types, tokens, and their refusals) from a real web process
 * is checked against the response the document (api/openapi/, as `app openapi` builds it) gives
 * for that method, path template, status and media type, with ajv's draft 2020-12 validator and
 * the document's components as the schemas' `$ref` targets; and no member of an answer (or of an
 * item it embeds) is one the document leaves undescribed. Its headers too: every header the
 * response declares is there when declared required and its value fits the header's schema, and
 * the headers clients act on (`Location`, `ETag`, paging, rate limit…) are there only where declared.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eventually } from '../../helpers/poll.ts';
import { openapiDocument } from '../../../api/openapi/document.ts';
import { discoverApiOffline } from '../../../api/openapi/offline.ts';
import { call, closeAll, receiver, startApi, startDeliveryWorker, type Answer } from '../webhooks-api/helpers.ts';

type Json = Record<string, unknown>;
type Header = { $ref?: string; required?: boolean; schema?: Json };
type Response = { $ref?: string; content?: Record<string, { schema: Json }>; headers?: Record<string, Header> };
type Doc = { paths: Record<string, Record<string, { responses: Record<string, Response> }>>; components: Json };

const DOC_ID = 'urn:app:openapi';

/** A JSON pointer's escape of one key. */
const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The documented response of `method path` for `status` (a `$ref` to components/responses
 * followed) with its JSON pointer in the document, or why there is none.
 */
function documented(
  doc: Doc,
  method: string,
  path: string,
  status: number,
): { response: Response; pointer: string } | string {
  // a literal segment wins over a parameter (`/webhooks/filter-test` over `/webhooks/{externalId}`)
  const template = Object.keys(doc.paths)
    .filter((candidate) => new RegExp(`^${candidate.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))
    .sort((a, b) => a.split('{').length - b.split('{').length)[0];
  if (!template) return `no path template matches ${path}`;
  const operation = doc.paths[template][method.toLowerCase()];
  if (!operation) return `${template} has no ${method}`;
  const key = String(status) in operation.responses ? String(status) : 'default';
  let response = operation.responses[key];
  if (!response) return `${method} ${template} lists no ${status} (it lists ${Object.keys(operation.responses)})`;
  let pointer = `#/paths/${pointerKey(template)}/${method.toLowerCase()}/responses/${key}`;
  if (response.$ref) {
    pointer = response.$ref;
    const name = response.$ref.replace('#/components/responses/', '');
    response = (doc.components.responses as Record<string, Response>)[name];
  }
  return { response, pointer };
}

/** The schema a local `$ref` names, followed until it is not a reference. */
function resolved(doc: Doc, schema: Json | undefined): Json | undefined {
  if (typeof schema?.$ref !== 'string') return schema;
  const target = schema.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return resolved(doc, target as Json | undefined);
}

/** The members an object schema describes, its `allOf` parts' included, with each one's schema. */
function described(doc: Doc, schema: Json | undefined): Map<string, Json> {
  const own = resolved(doc, schema);
  const members = new Map(Object.entries((own?.properties as Record<string, Json> | undefined) ?? {}));
  for (const part of (own?.allOf as Json[] | undefined) ?? [])
    for (const [name, member] of described(doc, part)) members.set(name, { allOf: [members.get(name) ?? {}, member] });
  return members;
}

/**
 * The members of an answer (and of the items it embeds under `_embedded`) that its schema does
 * not describe: the schemas leave `additionalProperties` open, so ajv alone would let a member
 * the document never mentions through, and a client generated from the document would not see it.
 */
function undescribed(doc: Doc, schema: Json, body: unknown, at = ''): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const members = described(doc, schema);
  if (members.size === 0) return [];
  const extra = Object.keys(body)
    .filter((name) => !members.has(name))
    .map((name) => `${at}${name}`);
  const embedded = (body as Json)._embedded as Record<string, unknown> | undefined;
  if (embedded && typeof embedded === 'object') {
    const slots = described(doc, members.get('_embedded'));
    for (const [name, items] of Object.entries(embedded)) {
      const itemSchema = Array.isArray(items) ? itemsOf(doc, slots.get(name)) : undefined;
      if (itemSchema && Array.isArray(items))
        for (const item of items.slice(0, 1)) extra.push(...undescribed(doc, itemSchema, item, `_embedded.${name}[].`));
    }
  }
  return extra;
}

/** The `items` schema of an array schema, through `allOf`. */
function itemsOf(doc: Doc, schema: Json | undefined): Json | undefined {
  const own = resolved(doc, schema);
  if (!own) return undefined;
  if (own.items) return own.items as Json;
  for (const part of (own.allOf as Json[] | undefined) ?? []) {
    const found = itemsOf(doc, part);
    if (found) return found;
  }
  return undefined;
}

/**
 * A header's value as its schema reads it: headers are text, so a number schema sees the number
 * the text spells (and the text itself when it spells none, for ajv to refuse).
 */
function headerValue(schema: Json | undefined, text: string): unknown {
  const type = schema?.type;
  const numeric = type === 'integer' || type === 'number';
  return numeric && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

/**
 * What is wrong with an answer's headers for its documented response: a header the document
 * says is required and the answer lacks, a value its schema refuses, or one of the headers
 * clients act on present in the answer but not declared for the response.
 */
function headerFailures(doc: Doc, ajv: Ajv2020, response: Response, answer: Answer, relied: string[]): string[] {
  const failures: string[] = [];
  const declared = new Map(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), h]));
  for (const [name, declaration] of declared) {
    const header = resolved(doc, declaration as Json) as Header | undefined;
    const value = answer.headers.get(name);
    if (value === null) {
      if (header?.required) failures.push(`header ${name} is required and absent`);
      continue;
    }
    const validate = ajv.compile(header?.schema ?? {});
    if (!validate(headerValue(header?.schema, value)))
      failures.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
  }
  for (const name of relied)
    if (answer.headers.get(name) !== null && !declared.has(name.toLowerCase()))
      failures.push(`header ${name} present and not declared (declared: ${[...declared.keys()]})`);
  return failures;
}

/** The headers clients act on (each one the document's components describe): present only where declared. */
const RELIED = [
  'Location',
  'ETag',
  'Link',
  'X-Total-Count',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Idempotency-Replayed',
  'WWW-Authenticate',
  'X-Request-Id',
];

describe('openapi answers', () => {
  after(closeAll);

  it('rule: every answer of the product routes matches the schema the document gives for its method, path, status and media type, and has no member it does not describe; its headers are the declared ones', async () => {
    const app = await startApi();
    await startDeliveryWorker(app);
    const doc = openapiDocument({ config: app.h.config, api: await discoverApiOffline() }) as unknown as Doc;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: DOC_ID, ...doc } as Json);

    const failures: string[] = [];
    let asked = 0;
    let checked = 0;
    /** Validates an answer against its documented response; records a failure with route, status and ajv's errors. */
    const check = (method: string, url: string, answer: Answer, expected: number) => {
      asked += 1;
      const path = new URL(url).pathname;
      const route = `${method} ${path} -> ${answer.status}`;
      if (answer.status !== expected) {
        failures.push(`${route}: expected ${expected}: ${answer.text.slice(0, 300)}`);
        return;
      }
      const found = documented(doc, method, path, answer.status);
      if (typeof found === 'string') {
        failures.push(`${route}: ${found}`);
        return;
      }
      const { response, pointer } = found;
      for (const failure of headerFailures(doc, ajv, response, answer, RELIED)) failures.push(`${route}: ${failure}`);
      const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0].trim();
      if (!response.content) {
        if (answer.text !== '') failures.push(`${route}: a body where the document has none`);
        checked += 1;
        return;
      }
      const media = response.content[mediaType];
      if (!media) {
        failures.push(`${route}: media type ${mediaType} not documented (${Object.keys(response.content)})`);
        return;
      }
      const validate = ajv.compile({ $ref: `${DOC_ID}${pointer}/content/${pointerKey(mediaType)}/schema` });
      const extra = undescribed(doc, media.schema, answer.body);
      if (extra.length > 0) failures.push(`${route} (${mediaType}): members the document does not describe: ${extra}`);
      if (!validate(answer.body)) failures.push(`${route} (${mediaType}): ${JSON.stringify(validate.errors, null, 1)}`);
      checked += 1;
    };
    const ask = async (
      method: string,
      url: string,
      expected: number,
      options: Parameters<typeof call>[2] = {},
    ): Promise<Answer> => {
      const answer = await call(method, url, options);
      check(method, url, answer, expected);
      return answer;
    };

    const token = await app.token('admin');
    const hook = await receiver();
    const api = app.api;

    // endpoints
    const created = await ask('POST', `${api}/webhooks`, 201, {
      token,
      body: { url: hook.url, events: ['*'], description: 'contract' },
    });
    const endpointUrl = `${api}/webhooks/${created.body?.externalId}`;
    await ask('POST', `${api}/webhooks`, 201, { token, body: { url: hook.url, events: ['invoice.*'] } });
    await ask('GET', `${api}/webhooks`, 200, { token });
    await ask('GET', endpointUrl, 200, { token });
    await ask('PATCH', endpointUrl, 200, { token, body: { description: 'changed' } });
    await ask('POST', `${endpointUrl}/rotate`, 200, { token, body: {} });

    // event types
    await ask('POST', `${api}/event-types`, 201, {
      token,
      body: { name: 'order.paid', description: 'An order was paid' },
    });
    await ask('GET', `${api}/event-types`, 200, { token });
    await ask('GET', `${api}/event-types/order.paid`, 200, { token });

    // events and deliveries: the one delivery of the event, once the worker has sent it
    const emitted = await ask('POST', `${api}/events`, 202, { token, body: { type: 'order.paid', data: { id: 1 } } });
    await ask('GET', `${api}/events`, 200, { token });
    await ask('GET', `${api}/events/${emitted.body?.externalId}`, 200, { token });
    const deliveries = await eventually(
      async () => {
        const listed = await call('GET', `${api}/deliveries`, { token });
        return listed.body?._embedded?.deliveries?.[0]?.status === 'done' ? listed : undefined;
      },
      10_000,
      'the delivery of the event to be done',
    );
    check('GET', `${api}/deliveries`, deliveries, 200);
    const delivery = deliveries.body._embedded.deliveries[0].externalId;
    await ask('GET', `${api}/deliveries/${delivery}`, 200, { token });
    await ask('GET', `${endpointUrl}/deliveries`, 200, { token });
    await ask('POST', `${api}/deliveries/${delivery}/resend`, 202, { token });
    await ask('POST', `${endpointUrl}/test`, 202, { token, body: { data: { ping: true } } });
    await ask('POST', `${endpointUrl}/recover`, 202, { token, body: { since: new Date(0).toISOString() } });
    await ask('POST', `${api}/webhooks/filter-test`, 200, {
      token,
      body: { filter: { 'data.id': { $gt: 0 } }, event: { type: 'order.paid', data: { id: 1 } } },
    });
    await ask('PATCH', `${api}/event-types/order.paid`, 200, { token, body: { deprecated: true } });

    // a dead delivery, sent again: a receiver answering a redirect makes it dead at once, without retries
    const redirecting = await receiver();
    redirecting.answer(302);
    await ask('POST', `${api}/webhooks`, 201, { token, body: { url: redirecting.url, events: ['order.refunded'] } });
    const refunded = await ask('POST', `${api}/events`, 202, { token, body: { type: 'order.refunded', data: {} } });
    const dead = await eventually(
      async () => {
        const listed = await call('GET', `${api}/deliveries?status=dead&event=${refunded.body?.externalId}`, { token });
        return listed.body?._embedded?.deliveries?.[0]?.externalId as string | undefined;
      },
      10_000,
      'the delivery to the redirecting receiver to be dead',
    );
    await ask('POST', `${api}/deliveries/${dead}/retry`, 202, { token });

    // the plain JSON media type answers the same documents
    const json = { token, headers: { Accept: 'application/json' } };
    await ask('GET', `${api}/webhooks`, 200, json);
    await ask('GET', endpointUrl, 200, json);
    await ask('GET', `${api}/deliveries/${delivery}`, 200, json);
    await ask('GET', `${api}/events`, 200, json);

    // tokens
    const minted = await ask('POST', `${api}/tokens`, 201, {
      token,
      body: { name: 'contract', role: 'viewer', owner: 'acme' },
    });
    await ask('GET', `${api}/tokens`, 200, { token });

    // refusals
    await ask('GET', `${api}/webhooks/ep_doesnotexist`, 404, { token });
    await ask('GET', `${api}/events/evt_doesnotexist`, 404, { token });
    await ask('GET', `${api}/deliveries/dlv_doesnotexist`, 404, { token });
    await ask('GET', `${api}/event-types/no.such`, 404, { token });
    await ask('POST', `${api}/webhooks`, 422, { token, body: { url: 'not a url', events: ['*'] } });
    await ask('POST', `${api}/events`, 422, { token, body: { data: {} } });
    await ask('POST', `${api}/webhooks/filter-test`, 422, {
      token,
      body: { filter: null, event: { type: 'order.paid', timestamp: 'yesterday' } },
    });
    await ask('POST', `${api}/tokens`, 422, { token, body: { name: '' } });
    await ask('PATCH', endpointUrl, 422, { token, body: { url: 42 } });
    await ask('POST', `${api}/event-types`, 409, { token, body: { name: 'order.paid' } });
    await ask('GET', `${api}/webhooks`, 401);
    await ask('GET', `${api}/webhooks`, 401, { token: 'app_tok_notatoken' });
    const viewer = minted.body?.token as string;
    await ask('POST', `${api}/webhooks`, 403, { token: viewer, body: { url: hook.url, events: ['*'] } });

    // removal
    await ask('DELETE', `${api}/tokens/${minted.body?.externalId}`, 200, { token });
    await ask('DELETE', endpointUrl, 204, { token });

    assert.deepEqual(failures, [], `answers that do not match the document:\n${failures.join('\n\n')}`);
    assert.ok(asked >= 42 && checked === asked, `${checked} of ${asked} answers checked`);
  });
});
