import { CORS_AREA } from './cors';
import { AUTHENTICATION_AREA, BODY_AREA, PET_ID_AREA, QUERY_AREA, ROUTING_AREA } from './errors';
import { IDEMPOTENCY_AREA } from './idempotency';
import { OPERATIONS_AREA } from './operations';
import { PAGINATION_AREA } from './pagination';
import type { ContractArea } from './target';

/**
 * The contract suite: what a client can check on any stage without side effects beyond pets
 * named `smoke-…`. The HTTP tests run it against the local server (test/http/contract.test.ts);
 * `npm run smoke` runs it against any base URL, and `--read-only` runs only READ_ONLY_SUITE.
 */
export const CONTRACT_SUITE: readonly ContractArea[] = [
  OPERATIONS_AREA,
  AUTHENTICATION_AREA,
  QUERY_AREA,
  PET_ID_AREA,
  BODY_AREA,
  ROUTING_AREA,
  PAGINATION_AREA,
  IDEMPOTENCY_AREA,
  CORS_AREA,
];

/** The checks that create nothing: what `npm run smoke -- --read-only` runs, e.g. on production. */
export const READ_ONLY_SUITE: readonly ContractArea[] = CONTRACT_SUITE.map(({ area, checks }) => ({
  area,
  checks: checks.filter((candidate) => !candidate.creates),
})).filter(({ checks }) => checks.length > 0);
