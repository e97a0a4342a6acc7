import type { ContractArea } from './check';
import { CORS_AREA } from './cors';
import { AUTHENTICATION_AREA, ROUTING_AREA } from './errors';
import { FAIR_USE_AREA } from './fair-use';
import { IDEMPOTENCY_AREA } from './idempotency';
import { OPERATIONS_AREA } from './operations';
import { PAGINATION_AREA } from './pagination';
import { PETS_AREA } from './pets';

/** What a client can check on any stage, creating only pets named `smoke-…`; tests and smoke run it. */
export const CONTRACT_SUITE: readonly ContractArea[] = [
  OPERATIONS_AREA,
  PETS_AREA,
  AUTHENTICATION_AREA,
  ROUTING_AREA,
  PAGINATION_AREA,
  IDEMPOTENCY_AREA,
  CORS_AREA,
  FAIR_USE_AREA,
];
