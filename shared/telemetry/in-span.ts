/**
 * Running a piece of work as the active span: every span started and every log line written
 * inside it (shared/log/logger.ts) belongs to it. A failure marks the span an error with the
 * failure's stable code (`APP_*`, else the error's name) as `error.type`; never its message, which
 * may quote what a caller sent.
 */
import { type Context, context, type Span, type SpanOptions, SpanStatusCode } from '@opentelemetry/api';
import { isAppError } from '../errors/app-error.ts';
import { tracer } from './tracer.ts';

/** The stable name of a failure, for `error.type` and the span's status. */
export function errorType(error: unknown): string {
  if (isAppError(error) && error.code) return error.code;
  return error instanceof Error ? error.name : 'thrown';
}

/**
 * Runs `work` inside a new span `name` (a child of `parent`, default the active context) and ends
 * the span when it settles. With tracing off the span records nothing.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  return tracer().startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      const type = errorType(error);
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      throw error;
    } finally {
      span.end();
    }
  });
}
