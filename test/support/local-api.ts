import type { OperationId } from '#functions/operations';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { generateApiKey } from '#shared/auth/api-key';
import type { Plans } from '#shared/fair-use/plans';
import type { ProxyHandler } from '#shared/lambda';
import { ApiClient } from '#tools/contract/api-client';
import { loadContract } from '#tools/contract/conformance';
import { FairUse } from '#tools/local/fair-use';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { localFunctions } from '#tools/local/local-stack';
import { TEST_PLANS } from './plans';
import { apiKeysOf, createTestTables, type TestTables } from './tables';

/** docs/openapi.yaml, loaded once per test file. */
const contract = loadContract();

/** A client of any local gateway whose every response must conform to docs/openapi.yaml. */
export const checkedClient = (baseUrl: string, apiKey: string): ApiClient =>
  ApiClient.checkedAgainst(contract, baseUrl, apiKey);

export interface LocalApi {
  /** Holds every response to docs/openapi.yaml: a response that breaks it fails the test. */
  readonly client: ApiClient;
  readonly gateway: LocalGateway;
  readonly tables: TestTables;
  readonly apiKey: string;
  close(): Promise<void>;
}

export interface LocalApiOptions {
  /**
   * Functions built differently for a test, on this API's tables: only for what the real parts
   * cannot reproduce on demand (a request held in flight, say); `real` are the ones they replace.
   */
  readonly handlers?: (
    tables: TestTables,
    real: Readonly<Record<string, ProxyHandler>>,
  ) => Partial<Record<OperationId, ProxyHandler>>;
  /** Web origins allowed to read answers, for the gateway and the functions. @default none */
  readonly corsOrigins?: AllowedOrigins;
  /** The plans' enforcement, on a clock of the test's. @default `plans` on the real clock */
  readonly fairUse?: FairUse;
  /** The plans the authorizer and the gateway know. @default TEST_PLANS */
  readonly plans?: Plans;
  /** The plan of the API's own key. @default the plans' default */
  readonly keyPlan?: string;
  /** The functions' Lambda timeout, shorter for a test that waits for it. @default the stack's */
  readonly functionTimeoutMs?: number;
}

/**
 * The local server in front of the real handlers and the real authorizer (each built by its
 * composition root, as `npm start` builds them), on tables of its own in the run's DynamoDB
 * Local, with one valid key on TEST_PLANS' default plan, the plans enforced. Its `client` checks every response against docs/openapi.yaml.
 */
export const startLocalApi = async (label: string, options: LocalApiOptions = {}): Promise<LocalApi> => {
  const tables = await createTestTables(label);
  const { key, record } = generateApiKey(`${label} tests`);
  await apiKeysOf(tables).put(options.keyPlan ? { ...record, plan: options.keyPlan } : record);
  const plans = options.plans ?? TEST_PLANS;
  const corsOrigins = options.corsOrigins ?? [];
  const functions = localFunctions({
    endpoint: tables.endpoint,
    tables: tables.names,
    logLevel: 'SILENT',
    corsOrigins,
    plans,
  });
  const gateway = await startLocalGateway({
    port: 0,
    corsOrigins,
    // Its key is on TEST_PLANS' default, roomy: no test of this server is slowed by its plan.
    fairUse: options.fairUse ?? new FairUse(plans),
    ...functions,
    handlers: { ...functions.handlers, ...options.handlers?.(tables, functions.handlers) },
    ...(options.functionTimeoutMs ? { functionTimeoutMs: options.functionTimeoutMs } : {}),
  });
  return {
    client: checkedClient(gateway.baseUrl, key),
    gateway,
    tables,
    apiKey: key,
    close: () => gateway.close(),
  };
};
