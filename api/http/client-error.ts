import type { Socket } from 'node:net';
import { requestIdFor } from '../middleware/request-id.ts';
import { BARE_ANSWER_HEADERS } from '../security/bare-answer-headers.ts';

/** Status and code for what Node's HTTP parser refuses before any middleware runs. */
function describe(code: string | undefined): { status: number; appCode: string; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, appCode: 'APP_REQUEST_HEADERS_TOO_LARGE', detail: 'the request headers are too large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      appCode: 'APP_REQUEST_INCOMPLETE',
      detail: 'the request did not arrive in full in time (headersTimeout, requestTimeout of the server)',
    };
  if (code === 'HPE_INVALID_METHOD')
    return {
      status: 501,
      appCode: 'APP_METHOD_NOT_IMPLEMENTED',
      detail: 'the request method is not one this server knows',
    };
  return { status: 400, appCode: 'APP_REQUEST_MALFORMED', detail: 'the request is not valid HTTP' };
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
};

/** How much of the refused bytes is searched for the client's `X-Request-Id`. */
const HEAD_SCAN_BYTES = 16 * 1024;

/**
 * The client's `X-Request-Id` as far as the refused bytes show it (the parser gave up, so the
 * header may be absent or cut off; an id that is not sane is not taken, as in request-id.ts).
 */
function givenRequestId(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const head = rawPacket.subarray(0, HEAD_SCAN_BYTES).toString('latin1').split('\r\n\r\n')[0];
  return /\r\nx-request-id:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(`${head}\r\n`)?.[1];
}

/**
 * The web server's `clientError` handler: a request Node's HTTP parser refuses (an unknown method
 * token, broken framing, oversized headers, a request not received in full in time) is answered with a problem+json body and a stable
 * code, like every other refusal, instead of Node's bare status line; then the connection closes.
 * Like every answer it carries a request id (`X-Request-Id` and the problem's `requestId`): the
 * client's when the refused bytes hold a sane one, else a new one; and security headers, which
 * helmet never adds here (api/security/bare-answer-headers.ts). A socket already gone is simply destroyed.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, appCode, detail } = describe(error.code);
  const requestId = requestIdFor(givenRequestId(error.rawPacket));
  const body = JSON.stringify({
    type: 'about:blank',
    title: REASONS[status],
    status,
    detail,
    code: appCode,
    requestId,
  });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Cache-Control: no-store\r\n' +
      Object.entries(BARE_ANSWER_HEADERS)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      'Connection: close\r\n\r\n' +
      body,
  );
}
