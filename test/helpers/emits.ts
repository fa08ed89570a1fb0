/**
 * An emit over REST (`POST /api/v1/events`) as a client sends it: what came back, with the headers
 * a client acts on, or `'no answer'` when none came within the time given (or the connection
 * failed).
 */
export interface EmitAnswer {
  status: number | 'no answer';
  /** How long the answer took. */
  ms: number;
  body?: Record<string, unknown>;
  retryAfter?: string | null;
  contentType?: string | null;
}

/** Posts `event` to the web process at `base` with `headers` (a token's), waiting at most `timeoutMs`. */
export async function emitOverRest(
  base: string,
  headers: Record<string, string>,
  event: { type: string; owner: string; data: unknown },
  timeoutMs: number,
): Promise<EmitAnswer> {
  const started = performance.now();
  try {
    const answer = await fetch(`${base}/api/v1/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await answer.json()) as Record<string, unknown>;
    return {
      status: answer.status,
      ms: performance.now() - started,
      body,
      retryAfter: answer.headers.get('retry-after'),
      contentType: answer.headers.get('content-type'),
    };
  } catch {
    return { status: 'no answer', ms: performance.now() - started };
  }
}
