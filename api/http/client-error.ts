import type { Socket } from 'node:net';

/** Status and code for what Node's HTTP parser refuses before any middleware runs. */
function describe(code: string | undefined): { status: number; appCode: string; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, appCode: 'APP_REQUEST_HEADERS_TOO_LARGE', detail: 'the request headers are too large' };
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
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
};

/**
 * The web server's `clientError` handler: a request Node's HTTP parser refuses (an unknown method
 * token, broken framing, oversized headers) is answered with a problem+json body and a stable
 * code, like every other refusal, instead of Node's bare status line; then the connection closes.
 * A socket already gone is simply destroyed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, appCode, detail } = describe(error.code);
  const body = JSON.stringify({ type: 'about:blank', title: REASONS[status], status, detail, code: appCode });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
