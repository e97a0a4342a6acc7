import { randomUUID } from 'node:crypto';
import { SMOKE_PREFIX } from '#tools/pet-names';
import { ApiClient, Pacer, type ResponseCheck } from './api-client';
import { type Contract, loadContract } from './conformance';

/**
 * What the contract suite runs against: any base URL and key, the local server's in the HTTP
 * tests, a deployed stage's in `npm run smoke`. The suite only does what is safe on a stage in
 * use: it reads, provokes errors that change nothing, and creates pets whose names start with
 * SMOKE_PREFIX, in the checks marked `creates` (which a read-only run skips).
 */

/** The start of the name of every pet the suite creates, so operators can find and remove them. */
export { SMOKE_PREFIX };

export interface ContractTarget {
  /** The API's base URL, ending in `/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /**
   * Holds every response to docs/openapi.yaml and to the headers every response carries; keeps
   * to the key's plan (RateLimit-Policy), waits out a 429 and stops the run on a spent quota.
   */
  readonly api: ApiClient;
  /**
   * A web origin the target allows (CORS). Without one, the checks of an allowed origin's answers
   * are skipped, saying so (production allows no origin).
   */
  readonly allowedOrigin?: string;
  /**
   * Which origins the target allows, when known: `listed` (a stage, or PETSTORE_CORS_ORIGINS) or
   * `any` (npm start by default). Unknown, the checks accept either.
   */
  readonly origins?: 'listed' | 'any';
  /** A read-only run: the checks that create pets are skipped, and a created pet fails the run. */
  readonly readOnly: boolean;
  /**
   * A client with a key of its own that the throttling check may spend (best on a small plan, such
   * as staging's `trial`). Without one, that check is skipped, saying so.
   */
  readonly throttled?: ApiClient;
}

/** Fails a read-only run's check the moment the API answers a POST with a created pet. */
const createsNothing: ResponseCheck = (exchange) => {
  if (exchange.method === 'POST' && exchange.status === 201) {
    throw new Error(
      `POST ${exchange.path} created a pet in a read-only run: declare the check with creating(…)`,
    );
  }
};

let contract: Contract | undefined;

export const contractTarget = (options: {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly allowedOrigin?: string;
  readonly origins?: 'listed' | 'any';
  /** Skip the checks that create pets, and refuse, as a failed check, any response that shows a pet was created. */
  readonly readOnly?: boolean;
  /** A key the throttling check may spend: it sends faster than the key's plan allows. */
  readonly throttleKey?: string;
}): ContractTarget => {
  contract ??= loadContract();
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const readOnly = options.readOnly ?? false;
  return {
    baseUrl,
    apiKey: options.apiKey,
    api: ApiClient.checkedAgainst(
      contract,
      baseUrl,
      options.apiKey,
      readOnly ? createsNothing : undefined,
      new Pacer(),
    ),
    ...(options.allowedOrigin ? { allowedOrigin: options.allowedOrigin } : {}),
    ...(options.origins ? { origins: options.origins } : {}),
    readOnly,
    ...(options.throttleKey
      ? {
          throttled: ApiClient.checkedAgainst(
            contract,
            baseUrl,
            options.throttleKey,
            readOnly ? createsNothing : undefined,
          ),
        }
      : {}),
  };
};

/** A name of this run's own: the prefix, a label, a random part. */
export const smokeName = (label: string): string => `${SMOKE_PREFIX}${label}-${randomUUID().slice(0, 8)}`;
