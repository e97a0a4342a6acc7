import { afterAll, beforeAll, describe, it } from 'vitest';
import { CONTRACT_SUITE } from '#tools/contract/suite';
import { contractTarget } from '#tools/contract/target';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * The contract suite (tools/contract/) against the local server: the same checks `npm run smoke`
 * runs against a deployed stage. Each check makes its own pets and keys: they run side by side.
 */

/** As staging: one web client's origin allowed. */
const ALLOWED_ORIGIN = 'http://localhost:5173';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('contract', { corsOrigins: [ALLOWED_ORIGIN] });
});
afterAll(() => api.close());

for (const { area, checks } of CONTRACT_SUITE) {
  describe.concurrent(area, () => {
    for (const { name, run } of checks) {
      it(name, () =>
        run(
          contractTarget({ baseUrl: api.gateway.baseUrl, apiKey: api.apiKey, allowedOrigin: ALLOWED_ORIGIN }),
        ),
      );
    }
  });
}
