import { randomUUID } from 'node:crypto';
import { SMOKE_PREFIX } from '#tools/pet-names';
import { ApiClient, Pacer, type PacingClock, type ResponseCheck } from './api-client';
import { type Contract, loadContract } from './conformance';

/** What the suite runs against; safe on a stage in use: it creates only SMOKE_PREFIX pets (`creates`). */

export interface ContractTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Checked against docs/openapi.yaml, paced by the key's plan. */
  readonly api: ApiClient;
  /** A web origin the target allows; without one, the checks of its answers are skipped. */
  readonly allowedOrigin?: string;
  /** `listed` (a stage, or PETSTORE_CORS_ORIGINS) or `any` (npm start); unknown, the checks accept either. */
  readonly origins?: 'listed' | 'any';
  /** The checks that create pets are skipped, and a created pet fails the run. */
  readonly readOnly: boolean;
  /** With a key of its own the throttling check may spend (best on a small plan such as `trial`). */
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
  readonly readOnly?: boolean;
  readonly throttleKey?: string;
  readonly clock?: PacingClock;
}): ContractTarget => {
  const checked = contract ?? loadContract();
  contract = checked;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const readOnly = options.readOnly ?? false;
  const client = (key: string, pacer?: Pacer) =>
    ApiClient.checkedAgainst(checked, baseUrl, key, readOnly ? createsNothing : undefined, pacer);
  return {
    baseUrl,
    apiKey: options.apiKey,
    api: client(options.apiKey, new Pacer(options.clock)),
    ...(options.allowedOrigin ? { allowedOrigin: options.allowedOrigin } : {}),
    ...(options.origins ? { origins: options.origins } : {}),
    readOnly,
    ...(options.throttleKey ? { throttled: client(options.throttleKey) } : {}),
  };
};

export const smokeName = (label: string): string => `${SMOKE_PREFIX}${label}-${randomUUID().slice(0, 8)}`;
