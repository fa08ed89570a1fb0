/**
 * An OTLP/HTTP trace receiver in the test process (a collector's `/v1/traces`, or another path
 * given, on 127.0.0.1 port 0): it takes what exporters send over `http/json` and `http/protobuf`
 * and keeps every span in one plain shape, so a test can ask what a process exported; a request
 * to any other path is answered 404, and the paths of all requests are kept. Its gRPC twin
 * (`startOtlpGrpcReceiver`) serves the collector's `TraceService/Export` over HTTP/2 with
 * `@grpc/grpc-js`, the library the `grpc` exporter itself uses.
 *
 * The installed OpenTelemetry packages serialize requests but decode only responses
 * (`@opentelemetry/otlp-transformer`'s serializers), so the request's protobuf is read here with
 * a small wire-format reader over the few messages of `opentelemetry/proto/trace/v1/trace.proto`
 * that carry spans (field numbers below are that file's).
 */
import { Server as GrpcServer, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { gunzipSync } from 'node:zlib';

export type AttributeValue = string | number | boolean | null | AttributeValue[];

/** One exported span, whatever the protocol it came by. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** SpanKind as OTLP numbers it: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** Status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  /** Attributes of the resource that exported it (`service.name`…). */
  resource: Record<string, AttributeValue>;
  /** `http/json`, `http/protobuf` or `grpc`. */
  protocol: string;
}

export interface OtlpReceiver {
  /** The endpoint to give as `OTEL_EXPORTER_OTLP_ENDPOINT`: `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** The whole URL exports are taken at (`<endpoint><path>`), to give as `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the export requests received. */
  contentTypes: string[];
  /** `<method> <path>` of every request, accepted or not, in order. */
  requests: string[];
  close(): Promise<void>;
}

// --- protobuf wire format -------------------------------------------------------------------

interface Field {
  number: number;
  /** A varint's value, or the bytes of a length-delimited or fixed field. */
  varint?: bigint;
  bytes?: Buffer;
}

/** The fields of one message, in order (varints, fixed32/64 as bytes, length-delimited as bytes). */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[offset++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ number, varint: varint() });
    else if (wire === 1) {
      out.push({ number, bytes: buffer.subarray(offset, offset + 8) });
      offset += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ number, bytes: buffer.subarray(offset, offset + length) });
      offset += length;
    } else if (wire === 5) {
      out.push({ number, bytes: buffer.subarray(offset, offset + 4) });
      offset += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const all = (message: Buffer, number: number) => fields(message).filter((field) => field.number === number);
const one = (message: Buffer, number: number) => all(message, number)[0];
const text = (field: Field | undefined) => field?.bytes?.toString('utf8') ?? '';

/** AnyValue: string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7. */
function protoValue(message: Buffer): AttributeValue {
  const [field] = fields(message);
  if (!field) return null;
  switch (field.number) {
    case 1:
      return text(field);
    case 2:
      return field.varint === 1n;
    case 3:
      return Number(BigInt.asIntN(64, field.varint ?? 0n));
    case 4:
      return field.bytes?.readDoubleLE(0) ?? 0;
    case 5:
      return all(field.bytes as Buffer, 1).map((entry) => protoValue(entry.bytes as Buffer));
    default:
      return (field.bytes ?? Buffer.alloc(0)).toString('hex');
  }
}

/** KeyValue: key 1, value 2. */
const protoAttributes = (list: Field[]): Record<string, AttributeValue> =>
  Object.fromEntries(
    list.map((entry) => [
      text(one(entry.bytes as Buffer, 1)),
      protoValue(one(entry.bytes as Buffer, 2)?.bytes ?? Buffer.alloc(0)),
    ]),
  );

/**
 * ExportTraceServiceRequest: resource_spans 1. ResourceSpans: resource 1 (attributes 1),
 * scope_spans 2. ScopeSpans: spans 2. Span: trace_id 1, span_id 2, parent_span_id 4, name 5,
 * kind 6, attributes 9, status 15 (message 2, code 3).
 */
function fromProtobuf(body: Buffer, protocol = 'http/protobuf'): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of all(body, 1)) {
    const resourceMessage = one(resourceSpans.bytes as Buffer, 1)?.bytes;
    const resource = resourceMessage ? protoAttributes(all(resourceMessage, 1)) : {};
    for (const scopeSpans of all(resourceSpans.bytes as Buffer, 2)) {
      for (const span of all(scopeSpans.bytes as Buffer, 2)) {
        const message = span.bytes as Buffer;
        const status = one(message, 15)?.bytes;
        spans.push({
          traceId: one(message, 1)?.bytes?.toString('hex') ?? '',
          spanId: one(message, 2)?.bytes?.toString('hex') ?? '',
          parentSpanId: one(message, 4)?.bytes?.toString('hex') ?? '',
          name: text(one(message, 5)),
          kind: Number(one(message, 6)?.varint ?? 0n),
          attributes: protoAttributes(all(message, 9)),
          status: {
            code: status ? Number(one(status, 3)?.varint ?? 0n) : 0,
            message: status ? text(one(status, 2)) : '',
          },
          resource,
          protocol,
        });
      }
    }
  }
  return spans;
}

// --- OTLP/JSON ------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value?: Record<string, unknown>;
}

function jsonValue(value: Record<string, unknown> | undefined): AttributeValue {
  if (!value) return null;
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return Boolean(value.boolValue);
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(jsonValue);
  return JSON.stringify(value);
}

const jsonAttributes = (list: JsonKeyValue[] | undefined): Record<string, AttributeValue> =>
  Object.fromEntries((list ?? []).map((entry) => [entry.key, jsonValue(entry.value)]));

/** Ids are hex in OTLP/JSON; base64 is accepted too. */
const jsonId = (id: unknown): string =>
  typeof id !== 'string' || id === '' ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');

function fromJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: { spans?: Record<string, unknown>[] }[];
    }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        const status = (span.status ?? {}) as { code?: number; message?: string };
        spans.push({
          traceId: jsonId(span.traceId),
          spanId: jsonId(span.spanId),
          parentSpanId: jsonId(span.parentSpanId),
          name: String(span.name),
          kind: Number(span.kind ?? 0),
          attributes: jsonAttributes(span.attributes as JsonKeyValue[] | undefined),
          status: { code: Number(status.code ?? 0), message: status.message ?? '' },
          resource,
          protocol: 'http/json',
        });
      }
    }
  }
  return spans;
}

// --- the receiver ---------------------------------------------------------------------------

const open: OtlpReceiver[] = [];
after(async () => {
  for (const receiver of open.splice(0)) await receiver.close();
});

/** Starts a receiver taking exports at `path` (default `/v1/traces`); closed when the file's tests end. */
export async function startOtlpReceiver(options: { path?: string } = {}): Promise<OtlpReceiver> {
  const path = options.path ?? '/v1/traces';
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = request.headers['content-type'] ?? '';
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const json = type.includes('json');
      if (request.method !== 'POST' || request.url !== path) {
        response.writeHead(404).end();
        return;
      }
      try {
        spans.push(...(json ? fromJson(body) : fromProtobuf(body)));
        contentTypes.push(type);
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
        return;
      }
      // an empty ExportTraceServiceResponse: full success
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: OtlpReceiver = {
    endpoint: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}${path}`,
    spans,
    contentTypes,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(receiver);
  return receiver;
}

/** What the gRPC receiver offers: the spans, and where to send them (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
export interface OtlpGrpcReceiver {
  /** `http://127.0.0.1:<port>`: plain HTTP/2, as an `http` endpoint tells the exporter. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** The gRPC method of every call received, in order. */
  calls: string[];
  close(): Promise<void>;
}

/** The collector's trace service (opentelemetry/proto/collector/trace/v1/trace_service.proto). */
const EXPORT_METHOD = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const raw = (buffer: Buffer) => buffer;

/** Starts a gRPC receiver of trace exports; closed when the file's tests end. */
export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const spans: ReceivedSpan[] = [];
  const calls: string[] = [];
  const server = new GrpcServer();
  // the messages stay bytes: the request is read with the wire-format reader above, and an
  // empty ExportTraceServiceResponse (no bytes) is full success
  const service: ServiceDefinition = {
    Export: {
      path: EXPORT_METHOD,
      requestStream: false,
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    },
  };
  server.addService(service, {
    Export: (call: { request: Buffer }, callback: (error: Error | null, response?: Buffer) => void) => {
      calls.push(EXPORT_METHOD);
      try {
        spans.push(...fromProtobuf(call.request, 'grpc'));
        callback(null, Buffer.alloc(0));
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const receiver = {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    calls,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
  grpcOpen.push(receiver);
  return receiver;
}

const grpcOpen: OtlpGrpcReceiver[] = [];
after(async () => {
  for (const receiver of grpcOpen.splice(0)) await receiver.close();
});
