/** The request header that makes a create idempotent (IETF draft "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Sent, as `true`, on an answer replayed for a repeated Idempotency-Key instead of processed anew. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
