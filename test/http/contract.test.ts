import { afterAll, beforeAll, describe, it } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import { type ContractArea, runCheck } from '#tools/contract/check';
import { CORS_AREA } from '#tools/contract/cors';
import { CONTRACT_SUITE } from '#tools/contract/suite';
import { type ContractTarget, contractTarget, smokeName } from '#tools/contract/target';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { apiKeysOf } from '../support/tables';

/**
 * The contract suite (tools/contract/) against the local server: the same checks `npm run smoke`
 * runs against a deployed stage. Each check makes its own pets and keys: they run side by side.
 * A check that does not apply to a target is reported skipped, with its reason, as the smoke
 * report does: never a pass that checked nothing.
 */

/** As staging: one web client's origin allowed. */
const ALLOWED_ORIGIN = 'http://localhost:5173';

let staging: LocalApi;
let production: LocalApi;
/** A key of its own on a plan of 1 request a second (burst 2), for the throttling check to spend. */
let throttleKey: string;
beforeAll(async () => {
  [staging, production] = await Promise.all([
    startLocalApi('contract', { corsOrigins: [ALLOWED_ORIGIN] }),
    startLocalApi('contract-no-origin'),
  ]);
  // A stage in use holds pets: the checks that read what it holds have something to read.
  await staging.client.post('/pets', { name: smokeName('resident'), categoryId: 1 });
  const { key, record } = generateApiKey('contract throttling');
  await apiKeysOf(staging.tables).put({ ...record, plan: 'slow' });
  throttleKey = key;
});
afterAll(() => Promise.all([staging?.close(), production?.close()]));

/** Each check a test of its own; one that does not apply to `target` is skipped with its reason. */
const runAgainst = (suite: readonly ContractArea[], target: () => ContractTarget) => {
  for (const { area, checks } of suite) {
    describe.concurrent(area, () => {
      for (const check of checks) {
        it(check.name, async ({ skip }) => {
          const outcome = await runCheck(check, target());
          if (outcome.status === 'skipped') skip(outcome.reason);
        });
      }
    });
  }
};

describe('a stage that allows one web origin (as staging)', () => {
  runAgainst(CONTRACT_SUITE, () =>
    contractTarget({
      baseUrl: staging.gateway.baseUrl,
      apiKey: staging.apiKey,
      allowedOrigin: ALLOWED_ORIGIN,
      origins: 'listed',
      throttleKey,
    }),
  );
});

/**
 * Production allows no web origin: the CORS checks of what an allowed origin gets do not apply
 * there and show as skipped, with why; the others hold (a preflight needs no key, an origin
 * gets nothing). The rest of the suite does not depend on the origins.
 */
describe('a stage that allows no web origin (as production)', () => {
  runAgainst([CORS_AREA], () =>
    contractTarget({ baseUrl: production.gateway.baseUrl, apiKey: production.apiKey, origins: 'listed' }),
  );
});
