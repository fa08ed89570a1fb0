/**
 * `node bench/otlp-sink.ts [port]`: a collector that accepts OTLP/HTTP trace exports and drops
 * them (counting requests and bytes, printed at exit), for measuring what tracing costs the
 * processes with an exporter really sending: `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:<port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let requests = 0;
let bytes = 0;
const server = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  request.on('end', () => {
    requests += 1;
    response.writeHead(200, { 'content-type': String(request.headers['content-type'] ?? 'application/x-protobuf') });
    response.end(String(request.headers['content-type']).includes('json') ? '{}' : '');
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`otlp sink on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
const stop = () => {
  process.stdout.write(`otlp sink: ${requests} export requests, ${bytes} bytes\n`);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
