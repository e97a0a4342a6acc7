import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPet } from '#functions/create-pet';
import { listPets } from '#functions/list-pets';
import { allowedMethods } from '#functions/operations';
import { parseRateLimitPolicy, ratePolicyName } from '#shared/http/rate-limit-policy';
import { HTTP_METHODS } from '#shared/operations/operation';
import type { ObservedExchange } from './api-client';
import { assertAtLeast, assertError } from './assertions';
import { type ContractArea, check } from './check';
import { bodyRequestId, requestIdOfAnswer } from './response-headers';

/** Fair use as a client sees it: a request id on every answer, the plan, and a 429 past its rate. */

/** The plan a `RateLimit-Policy` names, checked to be the two policies of the draft's form this API sends. */
const planOf = (response: ObservedExchange): { name: string; burst: number; windowSeconds: number } => {
  const value = response.headers.get('ratelimit-policy');
  const policies = parseRateLimitPolicy(value);
  assert.ok(
    policies,
    `${response.method} ${response.path} answered ${response.status} with RateLimit-Policy ${JSON.stringify(value)}`,
  );
  const [quota, rate] = policies;
  assert.equal(policies.length, 2, `two policies, the plan's quota and its rate: ${value}`);
  assert.equal(
    rate?.name,
    ratePolicyName(quota?.name ?? ''),
    `the rate policy is named after the plan: ${value}`,
  );
  for (const policy of policies) {
    assertAtLeast(policy.quota, 1);
    assertAtLeast(policy.windowSeconds, 1);
  }
  return { name: quota?.name ?? '', burst: rate?.quota ?? 0, windowSeconds: rate?.windowSeconds ?? 0 };
};

const LIST = listPets.path;
/** A method the listing's path does not have: API Gateway's 405 mock answers it, no function runs. */
const UNANSWERED = HTTP_METHODS.find((method) => !allowedMethods(LIST).includes(method)) ?? 'DELETE';

const WAVES = 5;

export const FAIR_USE_AREA: ContractArea = {
  area: 'fair use',
  checks: [
    check(
      "answers every request with a request id of its own (Request-Id, or API Gateway's x-amz-apigw-id), the Error body's requestId",
      async ({ api }) => {
        const answers = [
          await api.get(`${LIST}?limit=1`),
          await api.get(`${LIST}?limit=0`),
          await api.get(LIST, { anonymous: true }),
          await api.get('/no-such-path'),
          await api.request(LIST, { method: UNANSWERED }),
        ];

        const ids = answers.map((answer) => requestIdOfAnswer(answer.headers));
        for (const [index, id] of ids.entries()) {
          assert.ok(id, `answer ${index} names no request id`);
          const inBody = bodyRequestId(answers[index]?.json);
          if (inBody !== undefined) assert.equal(inBody, id);
        }
        assert.equal(new Set(ids).size, ids.length, `Request-Ids repeat: ${ids.join(', ')}`);
      },
    ),
    check(
      "names the caller's plan in RateLimit-Policy, the same on every answer to its key: successes, errors and API Gateway's 405",
      async ({ api }) => {
        const answers = [
          await api.get(`${LIST}?limit=1`),
          await api.get(`${LIST}?limit=0`),
          await api.post(createPet.path, {}),
          await api.request(LIST, { method: UNANSWERED }),
        ];

        assert.deepEqual(
          answers.map((answer) => answer.status),
          [200, 400, 400, 405],
        );
        const plans = answers.map((answer) => answer.headers.get('ratelimit-policy'));
        planOf(answers[0] as ObservedExchange);
        assert.equal(new Set(plans).size, 1, `answers to one key name different plans: ${plans.join(' | ')}`);
      },
    ),
    check('names no plan to a request whose key was not accepted', async ({ api }) => {
      const refused = await api.get(LIST, {
        anonymous: true,
        headers: { Authorization: 'Bearer psk_unknown' },
      });

      assertError(refused, 401, 'UNAUTHORIZED');
      assert.equal(refused.headers.get('ratelimit-policy'), null);
    }),
    check(
      'answers a key that sends faster than its plan with 429 TOO_MANY_REQUESTS, Retry-After and its plan, and serves it again after Retry-After',
      async ({ throttled }) => {
        assert.ok(throttled, 'run only with a throttle key');
        // Answered by API Gateway's 405 mock: metered like any method, and no function runs.
        const probe = () => throttled.request(LIST, { method: UNANSWERED });
        const first = await probe();
        assert.equal(first.status, 405, `the throttle key was refused: ${first.text}`);
        const plan = planOf(first);

        let refused: ObservedExchange | undefined;
        for (let wave = 0; wave < WAVES && !refused; wave += 1) {
          const answers = await Promise.all(Array.from({ length: 2 * plan.burst + 2 }, probe));
          refused = answers.find((answer) => answer.status === 429);
        }

        assert.ok(
          refused,
          `no 429 after ${WAVES} waves of ${2 * plan.burst + 2} requests at once on plan ${plan.name}`,
        );
        assertError(refused, 429, 'TOO_MANY_REQUESTS');
        const retryAfter = Number(refused.headers.get('retry-after'));
        assertAtLeast(retryAfter, 1);
        const named = refused.headers.get('ratelimit-policy');
        if (named !== null) assert.equal(named, first.headers.get('ratelimit-policy'));
        await sleep(retryAfter * 1_000);
        assert.equal((await probe()).status, 405);
      },
      { needs: 'throttled' },
    ),
  ],
};
