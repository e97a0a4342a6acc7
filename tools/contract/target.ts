import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { ApiClient, type ObservedExchange, type ResponseCheck } from './api-client';
import { type Contract, loadContract } from './conformance';

/**
 * What the contract suite runs against: any base URL and key, the local server's in the HTTP
 * tests, a deployed stage's in `npm run smoke`. The suite only does what is safe on a stage in
 * use: it reads, provokes errors that change nothing, and creates pets whose names start with
 * SMOKE_PREFIX, in the checks marked `creates` (which a read-only run skips).
 */

/** The start of the name of every pet the suite creates, so operators can find and remove them. */
export const SMOKE_PREFIX = 'smoke-';

export interface ContractTarget {
  /** The API's base URL, ending in `/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Holds every response to docs/openapi.yaml and to the headers every response carries. */
  readonly api: ApiClient;
  /**
   * A web origin the target allows (CORS). Without one, the CORS checks only see that a
   * preflight needs no key (production allows no origin).
   */
  readonly allowedOrigin?: string;
  /**
   * Which origins the target allows, when known: `listed` (a stage, or PETSTORE_CORS_ORIGINS) or
   * `any` (npm start by default). Unknown, the checks accept either.
   */
  readonly origins?: 'listed' | 'any';
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
  /** Refuse, as a failed check, any response that shows a pet was created. */
  readonly readOnly?: boolean;
}): ContractTarget => {
  contract ??= loadContract();
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return {
    baseUrl,
    apiKey: options.apiKey,
    api: ApiClient.checkedAgainst(
      contract,
      baseUrl,
      options.apiKey,
      options.readOnly ? createsNothing : undefined,
    ),
    ...(options.allowedOrigin ? { allowedOrigin: options.allowedOrigin } : {}),
    ...(options.origins ? { origins: options.origins } : {}),
  };
};

/** A name of this run's own: the prefix, a label, a random part. */
export const smokeName = (label: string): string => `${SMOKE_PREFIX}${label}-${randomUUID().slice(0, 8)}`;

/** Every failure is the Error object, as JSON, with `status` equal to the HTTP status, and no stack trace. */
export const expectError = (response: ObservedExchange, status: number, code: string): void => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.json).toMatchObject({ code, status, message: expect.any(String) });
  expect(response.text).not.toMatch(/\bat .+:\d+:\d+/);
};

/** The `details` of a validation failure. */
export const detailsOf = (response: ObservedExchange): { field: string; message: string }[] =>
  (response.json as { details?: { field: string; message: string }[] }).details ?? [];

/** One check of the suite: a name that says what the service does, and the code that shows it. */
export interface ContractCheck {
  readonly name: string;
  readonly run: (target: ContractTarget) => Promise<void>;
  /** It creates pets (named SMOKE_PREFIX…): a read-only run (`npm run smoke -- --read-only`) skips it. */
  readonly creates: boolean;
}

export interface CheckOptions {
  readonly creates?: boolean;
}

export interface ContractArea {
  readonly area: string;
  readonly checks: readonly ContractCheck[];
}

export const check = (
  name: string,
  run: ContractCheck['run'],
  options: CheckOptions = {},
): ContractCheck => ({ name, run, creates: options.creates ?? false });

/** A check that creates pets (named with smokeName): `check(name, run, { creates: true })`. */
export const creating = (name: string, run: ContractCheck['run']): ContractCheck =>
  check(name, run, { creates: true });

/** One check per case, named by `name` from the case (the `it.each` of the suite). */
export const eachCase = <const T>(
  cases: readonly T[],
  name: (value: T) => string,
  run: (target: ContractTarget, value: T) => Promise<void>,
  options: CheckOptions = {},
): ContractCheck[] => cases.map((value) => check(name(value), (target) => run(target, value), options));
