import assert from 'node:assert/strict';
import { createPet } from '#functions/create-pet/contract';
import { DEFAULT_PET_STATUS } from '#shared/domain/pet';
import { BASE_PATH } from '#shared/http/paths';
import { assertContains, assertError, detailsOf } from './assertions';
import { type ContractArea, check, creating } from './check';
import { smokeName } from './target';

/** What pets the service keeps, as any client sees them, beyond what each operation's contract shows. */

type Pet = { id: number; name: string; categoryId: number; status: string };

const CREATE = createPet.path;

export const PETS_AREA: ContractArea = {
  area: 'pets',
  checks: [
    creating(
      `POST ${CREATE} answers 201 with the pet as sent, ${DEFAULT_PET_STATUS} by default, a new id each time, and its Location`,
      async ({ api }) => {
        const body = { name: smokeName('twin'), categoryId: 3 };

        const [first, second] = [await api.post(CREATE, body), await api.post(CREATE, body)];

        const pet = first.json as Pet;
        assert.deepEqual([first.status, second.status], [201, 201]);
        assert.deepEqual(pet, { id: pet.id, ...body, status: DEFAULT_PET_STATUS });
        assert.notEqual((second.json as Pet).id, pet.id);
        assert.equal(first.headers.get('location'), `${BASE_PATH}${CREATE}/${pet.id}`);
      },
    ),
    check(
      'refuses a name with no visible character (U+200B, U+3164) or a control character, by the runtime’s Unicode tables',
      async ({ api }) => {
        const cases = [
          ['\u200b', 'must not be blank'],
          ['\u3164', 'must not be blank'],
          ['Rex\u0000', 'must not contain control characters'],
          ['Rex\nSmith', 'must not contain control characters'],
        ] as const;
        for (const [name, message] of cases) {
          const response = await api.post(CREATE, { name, categoryId: 1 });

          assertError(response, 400, 'VALIDATION_FAILED');
          assertContains(detailsOf(response).find(({ field }) => field === 'body.name')?.message, message);
        }
      },
    ),
    creating(`GET ${CREATE}/{id} reads back pets created an instant before`, async ({ api }) => {
      const created = await Promise.all(
        [0, 1, 2, 3, 4].map((index) => api.post(CREATE, { name: smokeName(`quick${index}`), categoryId: 1 })),
      );

      const reads = await Promise.all(
        created.map((response) => api.get(`${CREATE}/${(response.json as Pet).id}`)),
      );

      assert.deepEqual(
        reads.map((read) => [read.status, read.json]),
        created.map((response) => [200, response.json]),
      );
    }),
  ],
};
