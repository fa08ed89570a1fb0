/**
 * Stored idempotent answers are sealed at rest: the answers of `POST
 * /webhooks`, `POST /webhooks/:id/rotate` and GraphQL `registerWebhookEndpoint` carry a signing
 * secret, and the shared store (PostgreSQL `app_shared_entries`, Redis `app:entry:idem:*`) keeps
 * them for 24 hours. Every answer is sealed whole (status, headers, body) with AES-256-GCM under a
 * key derived from the application secret for this purpose alone, exactly as signing secrets are
 * at rest; without an application secret (the unencrypted mode the audit reports) they are stored
 * as they are, like the secrets themselves.
 */
import { AppError } from '../../shared/errors/app-error.ts';
import type { Json } from '../../shared/stores/types.ts';
import { type BoxSecrets, secretBoxOf } from '../../shared/webhooks/secret-box.ts';
import type { StoredAnswer } from './answer.ts';

export interface AnswerSeal {
  seal(answer: StoredAnswer): Json;
  /** Throws 409 `APP_API_IDEMPOTENCY_ANSWER_UNREADABLE` when the answer was sealed under another application secret. */
  open(stored: Json): StoredAnswer;
}

/** The seal of stored answers for `config.secret`; answers sealed under a `previousSecrets` one still open. */
export function answerSeal(config: BoxSecrets): AnswerSeal {
  const box = secretBoxOf(config, 'idempotency-answers');
  return {
    seal: (answer) => (box.encrypted ? { sealed: box.seal(JSON.stringify(answer)) } : (answer as unknown as Json)),
    open(stored) {
      const sealed = (stored as { sealed?: unknown }).sealed;
      if (typeof sealed !== 'string') return stored as unknown as StoredAnswer;
      try {
        return JSON.parse(box.open(sealed)) as StoredAnswer;
      } catch (error) {
        throw new AppError(
          409,
          'the stored answer of this Idempotency-Key cannot be read (the application secret changed since, and the previous one is not in APP_PREVIOUS_SECRETS); send the request with a new key',
          {
            code: 'APP_API_IDEMPOTENCY_ANSWER_UNREADABLE',
            cause: error,
          },
        );
      }
    },
  };
}
