import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createPet } from '#functions/create-pet';
import { type NewPet, PET_FIELD_NAMES, type Pet } from '#shared/domain/pet';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '#shared/http/idempotency-headers';
import type { ObservedExchange } from './api-client';
import { assertError, detailsOf } from './assertions';
import { type ContractArea, check, creating } from './check';
import { smokeName } from './target';

/** createPet with an `Idempotency-Key`, as a client retrying after a timeout sees it. */

const CREATE = createPet.path;
const withKey = (key: string) => ({ headers: { [IDEMPOTENCY_KEY_HEADER]: key } });
const replayed = (response: ObservedExchange) => response.headers.get(IDEMPOTENT_REPLAYED_HEADER);

/** Two requests that differ in every field of a pet: a field added to the pet makes the compiler name them. */
const SAMPLES = [
  { name: 'sample-a', categoryId: 4, status: 'pending' },
  { name: 'sample-b', categoryId: 5, status: 'sold' },
] as const satisfies readonly [Required<NewPet>, Required<NewPet>];

export const IDEMPOTENCY_AREA: ContractArea = {
  area: `POST ${CREATE} with an ${IDEMPOTENCY_KEY_HEADER}`,
  checks: [
    creating(
      `answers a repeat with the first 201, its body and Location, plus ${IDEMPOTENT_REPLAYED_HEADER}; another body, 422`,
      async ({ api }) => {
        const key = randomUUID();
        const body = { name: smokeName('replay'), categoryId: 4, status: 'pending' };

        const first = await api.post(CREATE, body, withKey(key));
        const repeat = await api.post(CREATE, body, withKey(key));
        const reused = await api.post(CREATE, { ...body, categoryId: 5 }, withKey(key));

        assert.deepEqual(
          [first.status, replayed(first), repeat.status, replayed(repeat)],
          [201, null, 201, 'true'],
        );
        assert.deepEqual(
          [repeat.json, repeat.headers.get('location')],
          [first.json, first.headers.get('location')],
        );
        assertError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
      },
    ),
    creating(
      `answers a repeat that differs from the first request in any one field (${PET_FIELD_NAMES.join(', ')}) with 422, the first having stored every field as sent`,
      async ({ api }) => {
        const [sample, other] = SAMPLES;
        const key = randomUUID();
        const body = { ...sample, name: smokeName(sample.name) };

        const first = await api.post(CREATE, body, withKey(key));

        assert.equal(first.status, 201, first.text);
        assert.deepEqual(first.json, { id: (first.json as Pet).id, ...body });
        for (const field of PET_FIELD_NAMES) {
          const changed = { ...body, [field]: field === 'name' ? smokeName(other.name) : other[field] };
          assertError(await api.post(CREATE, changed, withKey(key)), 422, 'IDEMPOTENCY_KEY_REUSED');
        }
      },
    ),
    creating(
      'gives 20 concurrent requests with one key one pet: the others replay it or answer 409 with Retry-After',
      async ({ api }) => {
        const key = randomUUID();
        const body = { name: smokeName('stampede'), categoryId: 9 };

        // The suite's client sends a 429 or a keyed 503 again after its Retry-After, as a client does.
        const responses = await Promise.all(
          Array.from({ length: 20 }, () => api.post(CREATE, body, withKey(key))),
        );

        const created = responses.filter((response) => response.status === 201);
        const busy = responses.filter((response) => response.status === 409);
        assert.equal(created.length + busy.length, 20);
        assert.equal(created.filter((response) => replayed(response) === null).length, 1);
        assert.equal(new Set(created.map((response) => JSON.stringify(response.json))).size, 1);
        for (const response of busy) {
          assertError(response, 409, 'IDEMPOTENCY_KEY_IN_USE');
          assert.equal(response.headers.get('retry-after'), '1');
        }
        assert.deepEqual((await api.post(CREATE, body, withKey(key))).json, created[0]?.json);
      },
    ),
    check(
      'answers a key that is empty, too long, not ASCII or holds a control character with 400 naming it',
      async ({ api }) => {
        for (const key of ['', 'k'.repeat(256), 'clé-1', 'key\twith-tab']) {
          const response = await api.post(
            CREATE,
            { name: smokeName('bad-key'), categoryId: 1 },
            withKey(key),
          );

          assertError(response, 400, 'VALIDATION_FAILED');
          assert.deepEqual(detailsOf(response), [
            { field: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
          ]);
        }
      },
    ),
  ],
};
