/**
 * What a delivery attempt means for the delivery and its endpoint (docs/receiving.md, "What your
 * answer does"), as a table: the first rule whose `when` holds decides.
 * `Retry-After` from a receiver is ignored; the queue's backoff alone schedules retries.
 */
import { AppError } from '../../shared/errors/app-error.ts';
import { recordedText } from '../../shared/webhooks/deliveries/recorded-text.ts';
import type { AttemptResult } from './post.ts';

/** The decision on one attempt. `error` is kept for the operator when the attempt failed. */
export interface AttemptOutcome {
  result: 'done' | 'retry' | 'dead';
  disableEndpoint: boolean;
  error?: string;
}

/** One row of the outcome table. */
export interface OutcomeRule {
  /** The trigger and condition, in words. */
  readonly trigger: string;
  readonly when: (attempt: AttemptResult) => boolean;
  readonly result: AttemptOutcome['result'];
  readonly disableEndpoint: boolean;
  /** The failure text kept for the operator (absent for success). */
  readonly error?: (attempt: AttemptResult) => string;
}

const status = (attempt: AttemptResult) => (attempt.kind === 'response' ? attempt.status : -1);
const answered = (attempt: AttemptResult, text: string) =>
  attempt.kind === 'response' ? `receiver answered ${attempt.status}${text}` : text;
const errorOf = (attempt: AttemptResult) => ('error' in attempt ? attempt.error : attempt.kind);

/** The outcome table, in the order it is consulted. */
export const OUTCOME_RULES: readonly OutcomeRule[] = [
  {
    trigger: 'receiver answers 2xx',
    when: (a) => status(a) >= 200 && status(a) <= 299,
    result: 'done',
    disableEndpoint: false,
  },
  {
    trigger: 'broker acknowledges the message',
    when: (a) => a.kind === 'acknowledged',
    result: 'done',
    disableEndpoint: false,
  },
  {
    trigger:
      'broker refuses the message (negative acknowledgement, login refused, no such exchange, stream or subject)',
    when: (a) => a.kind === 'rejected',
    result: 'retry',
    disableEndpoint: false,
    error: (a) => `broker refused: ${errorOf(a)}`,
  },
  {
    trigger: 'receiver answers 3xx (redirect not followed)',
    when: (a) => status(a) >= 300 && status(a) <= 399,
    result: 'dead',
    disableEndpoint: false,
    error: (a) =>
      answered(
        a,
        `, a redirect to ${a.kind === 'response' && a.location !== undefined ? a.location : '(no Location header)'}` +
          ' that is not followed',
      ),
  },
  {
    trigger: 'receiver answers 410',
    when: (a) => status(a) === 410,
    result: 'dead',
    disableEndpoint: true,
    error: (a) => answered(a, ' Gone; the endpoint is disabled'),
  },
  {
    trigger: 'receiver answers any other 4xx',
    when: (a) => status(a) >= 400 && status(a) <= 499,
    result: 'retry',
    disableEndpoint: false,
    error: (a) => answered(a, ''),
  },
  {
    trigger: 'receiver answers 5xx',
    when: (a) => status(a) >= 500 && status(a) <= 599,
    result: 'retry',
    disableEndpoint: false,
    error: (a) => answered(a, ''),
  },
  {
    trigger: 'receiver answers another status',
    when: (a) => a.kind === 'response',
    result: 'retry',
    disableEndpoint: false,
    error: (a) => answered(a, ', not a status the service expects'),
  },
  {
    trigger: 'no complete answer (or broker acknowledgement) within webhooks.timeout',
    when: (a) => a.kind === 'timeout',
    result: 'retry',
    disableEndpoint: false,
    error: (a) => `timeout: ${errorOf(a)}`,
  },
  {
    trigger: 'connection error',
    when: (a) => a.kind === 'connection-error',
    result: 'retry',
    disableEndpoint: false,
    error: (a) => `connection error: ${errorOf(a)}`,
  },
  {
    trigger: 'resolved address is refused',
    when: (a) => a.kind === 'address-refused',
    result: 'dead',
    disableEndpoint: false,
    error: (a) => (a.kind === 'address-refused' ? `address ${a.address} refused (${a.rule})` : errorOf(a)),
  },
  {
    trigger: 'url no longer acceptable',
    when: (a) => a.kind === 'invalid-url',
    result: 'dead',
    disableEndpoint: false,
    error: (a) => `invalid url: ${errorOf(a)}`,
  },
];

/** The rule of `OUTCOME_RULES` that decides `attempt`. */
export function outcomeRuleFor(attempt: AttemptResult): OutcomeRule {
  const rule = OUTCOME_RULES.find((candidate) => candidate.when(attempt));
  // Unreachable while the table covers every AttemptResult kind (the tests check it).
  if (rule === undefined) {
    const kind = (attempt as { kind: string }).kind;
    throw new AppError(500, `no outcome rule for attempt kind ${kind}`, {
      code: 'APP_WEBHOOK_OUTCOME_UNKNOWN',
      data: { kind },
    });
  }
  return rule;
}

/** Classifies one attempt by the outcome table: done, retry or dead, and whether to disable. */
export function classifyAttempt(attempt: AttemptResult): AttemptOutcome {
  const rule = outcomeRuleFor(attempt);
  return {
    result: rule.result,
    disableEndpoint: rule.disableEndpoint,
    // the error quotes what the receiver or broker wrote (a Location, a broker's reason): every
    // use of it (the records, the operational events, the log) gets it as the records keep it
    ...(rule.error === undefined ? {} : { error: recordedText(rule.error(attempt)) }),
  };
}
