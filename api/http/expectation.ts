import type { IncomingMessage, ServerResponse } from 'node:http';
import { clip } from '../../shared/errors/describe-value.ts';
import { requestIdFor } from '../middleware/request-id.ts';
import { BARE_ANSWER_HEADERS } from '../security/bare-answer-headers.ts';

/** Longest part of an unmet `Expect` value repeated in the answer. */
const MAX_ECHO = 200;

/**
 * The web server's `checkExpectation` handler: a request whose `Expect` is not `100-continue`
 * (the one expectation HTTP defines, which Node answers itself) is refused with 417 before any
 * middleware runs. Node's own 417 has no body and no request id; this one is problem+json with
 * the stable code `APP_EXPECTATION_UNSUPPORTED` and the request id, like every other refusal.
 */
export function answerUnmetExpectation(req: IncomingMessage, res: ServerResponse): void {
  const given = req.headers['x-request-id'];
  const requestId = requestIdFor(Array.isArray(given) ? given[0] : given);
  const expect = clip(String(req.headers.expect ?? ''), MAX_ECHO);
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Expectation Failed',
    status: 417,
    detail: `the expectation ${JSON.stringify(expect)} is not supported: only 100-continue is`,
    code: 'APP_EXPECTATION_UNSUPPORTED',
    data: { expect },
    requestId,
  });
  res.writeHead(417, {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    'Cache-Control': 'no-store',
    ...BARE_ANSWER_HEADERS,
  });
  res.end(body);
}
