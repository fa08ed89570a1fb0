import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { Config } from '../config/index.ts';
import { createRedactor } from './redact.ts';

/**
 * The service's logger: pino, plus `redact(value)` (what other stacks call `pen.redact(object)`),
 * which masks a value exactly as the log lines are masked: with the configured `filterParameters`.
 */
export type Logger = PinoLogger & { redact(value: unknown): unknown };

/** What a log line written inside a request (or job) carries: its request id. */
export interface LogContext {
  reqId?: string;
  jobId?: string;
}

/** Per-request log context; the request-id middleware and the worker task enter it. */
export const logContext = new AsyncLocalStorage<LogContext>();

/**
 * What a line carries besides: its request (or job) id, and inside a traced span the ids of its
 * trace and span (`trace_id`, `span_id`, the names OpenTelemetry's log data model uses), so a log
 * line leads to its trace. Tracing off, there is never an active span: nothing is added.
 */
export function lineContext(): Record<string, string> {
  const fields: Record<string, string> = { ...logContext.getStore() };
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    fields.trace_id = span.traceId;
    fields.span_id = span.spanId;
  }
  return fields;
}

export interface LoggerOptions {
  /** Name shown in every line (`web`, `worker`, `cli`). */
  name: string;
  /** Where lines go (default: stdout, or stderr with `stderr`; pretty in development when pino-pretty is installed). */
  destination?: DestinationStream;
  /** Write to stderr instead of stdout (the CLI keeps stdout for its output). */
  stderr?: boolean;
}

/**
 * Whether readable lines are coloured: only on a terminal, and never with `NO_COLOR` set to
 * anything but the empty text (no-color.org), which a user sets to turn colours off everywhere.
 */
export const colourWanted = (stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && !env.NO_COLOR;

function prettyStream(fd: 1 | 2): DestinationStream | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pretty = require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
    return pretty({
      colorize: colourWanted(fd === 2 ? process.stderr : process.stdout),
      translateTime: 'HH:MM:ss.l',
      ignore: 'pid,hostname',
      destination: fd,
    });
  } catch {
    return undefined; // production installs have no pino-pretty: JSON it is
  }
}

/**
 * The process logger: pino, JSON in production, readable in development. Every value it prints
 * (bindings, objects, errors, messages, query strings in URLs) goes through the
 * `config.filterParameters` masking, every line written inside a request carries `reqId`, and
 * every line written inside a traced span its `trace_id` and `span_id`.
 */
export function createLogger(
  config: Pick<Config, 'env' | 'logLevel' | 'filterParameters'>,
  options: LoggerOptions,
): Logger {
  const redact = createRedactor(config.filterParameters);
  const fd = options.stderr ? 2 : 1;
  const destination = options.destination ?? (config.env === 'development' ? prettyStream(fd) : undefined);
  const logger = pino(
    {
      name: options.name,
      level: config.logLevel,
      mixin: lineContext,
      // errors are already turned into masked plain objects by formatters.log
      serializers: { err: (value: unknown) => value },
      formatters: {
        log: (object) => redact(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          // objects are masked by formatters.log; strings (messages, format arguments) here
          const masked = args.map((arg) => (typeof arg === 'string' ? redact(arg) : arg)) as Parameters<typeof method>;
          return method.apply(this, masked);
        },
      },
    },
    destination ?? pino.destination({ dest: fd, sync: true }),
  );
  // pino does not pass child bindings through formatters.bindings; children inherit this
  const child = logger.child;
  // children keep the masking of their bindings and the `redact` method
  logger.child = function maskedChild(this: PinoLogger, bindings: Record<string, unknown>, options?: object) {
    const made = (
      child as unknown as (this: PinoLogger, bindings: Record<string, unknown>, options?: object) => PinoLogger
    ).call(this, redact(bindings) as Record<string, unknown>, options);
    return Object.assign(made, { redact });
  } as unknown as typeof logger.child;
  return Object.assign(logger, { redact });
}
