import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizerFunction } from '#functions/authorizer';
import { OPERATIONS } from '#functions/operations';
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

/** Every DynamoDB call each function made during the run (`action on table[/index]`), by function. */
const { calls } = vi.hoisted(() => ({ calls: new Map<string, Set<string>>() }));
vi.mock(import('#shared/adapters/dynamodb/access'), async (original) => {
  const access = await original();
  return {
    ...access,
    refusalOf: (grants, call) => {
      const table = Object.entries(grants.tables).find(([, name]) => name === call.tableName)?.[0];
      calls.set(grants.name, (calls.get(grants.name) ?? new Set()).add(made(call.action, table, call.index)));
      return access.refusalOf(grants, call);
    },
  };
});
const made = (action: string, table: string | undefined, index: string | undefined) =>
  `${action} on ${table}${index ? `/${index}` : ''}`;

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

/** How many checks ran to the end, passed or skipped: the whole suite, or a part of it (`-t`). */
let ended = 0;

/** Each check a test of its own; one that does not apply to `target` is skipped with its reason. */
const runAgainst = (suite: readonly ContractArea[], target: () => ContractTarget) => {
  for (const { area, checks } of suite) {
    describe.concurrent(area, () => {
      for (const check of checks) {
        it(check.name, async ({ skip }) => {
          const outcome = await runCheck(check, target());
          ended += 1;
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

/**
 * The local server refuses any call outside a function's uses (shared/composition/function.ts): no
 * entry is missing. Over the whole suite, each function also made every call its `data`
 * declares: none is a grant wider than its function needs.
 */
describe('the DynamoDB calls of each function over the suite', () => {
  for (const root of [...OPERATIONS, authorizerFunction]) {
    it(`${root.name} made exactly the calls its data declares`, ({ skip }) => {
      const suite = CONTRACT_SUITE.flatMap((area) => area.checks).length + CORS_AREA.checks.length;
      if (ended < suite) skip('the suite did not run whole');
      const expected = root.data.flatMap(({ table, index, actions }) =>
        actions.map((action) => made(action, table, index)),
      );

      expect([...(calls.get(root.name) ?? [])].sort()).toEqual([...new Set(expected)].sort());
    });
  }
});
