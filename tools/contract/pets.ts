import assert from 'node:assert/strict';
import { createPet } from '#functions/create-pet';
import { DEFAULT_PET_STATUS, type Pet } from '#shared/domain/pet';
import { MAX_ENTITY_TAGS } from '#shared/http/limits';
import { BASE_PATH } from '#shared/http/paths';
import type { ApiClient } from './api-client';
import { assertContains, assertError, detailsOf } from './assertions';
import { type ContractArea, check, creating } from './check';
import { smokeName } from './target';

/** What pets the service keeps, as any client sees them, beyond what each operation's contract shows. */

const CREATE = createPet.path;
const ONE = (id: number) => `${CREATE}/${id}`;

/** A pet of this run's own, created `available`, and its ETag as a read gives it. */
const ownPet = async (api: ApiClient, label: string): Promise<{ pet: Pet; etag: string }> => {
  const created = await api.post(CREATE, { name: smokeName(label), categoryId: 2 });
  const pet = created.json as Pet;
  const read = await api.get(ONE(pet.id));
  assert.equal(read.status, 200, read.text);
  return { pet, etag: read.headers.get('etag') ?? '' };
};

/** Whether a walk of the listing by `status` shows the pet. */
const listed = async (api: ApiClient, status: string, id: number): Promise<boolean> => {
  let next: string | undefined = `${CREATE}?status=${status}&limit=100`;
  while (next) {
    const page = await api.get(next);
    if ((page.json as Pet[]).some((pet) => pet.id === id)) return true;
    next = page.headers.get('link')?.match(/<[^>]*?(\/pets\?[^>]*)>/)?.[1];
  }
  return false;
};

const patch = (api: ApiClient, id: number, body: unknown, headers: Record<string, string> = {}) =>
  api.request(ONE(id), {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json', ...headers },
    body: JSON.stringify(body),
  });

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
    creating(
      `POST ${CREATE} and PATCH ${CREATE}/{id} with a member name given twice (an equal value too, at any depth) answer 400 naming it, and change nothing`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'repeated');
        const name = JSON.stringify(smokeName('repeated'));
        const cases = [
          [`{"name":${name},"categoryId":1,"name":${name}}`, 'body.name'],
          [`{"name":${name},"categoryId":1,"x":{"y":1,"y":2}}`, 'body.x.y'],
        ] as const;

        for (const [body, field] of cases) {
          const created = await api.post(CREATE, body, { headers: { 'Content-Type': 'application/json' } });
          const patched = await api.request(ONE(pet.id), {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/merge-patch+json' },
            body: body.replace(',"categoryId":1', ''),
          });

          for (const answer of [created, patched]) {
            assertError(answer, 400, 'VALIDATION_FAILED');
            assert.deepEqual(
              detailsOf(answer).map((detail) => detail.field),
              [field],
            );
          }
        }
        const read = await api.get(ONE(pet.id));
        assert.deepEqual([read.json, read.headers.get('etag')], [pet, etag]);
      },
    ),
    creating(`GET ${CREATE}/{id} reads back pets created an instant before`, async ({ api }) => {
      const created = await Promise.all(
        [0, 1, 2, 3, 4].map((index) => api.post(CREATE, { name: smokeName(`quick${index}`), categoryId: 1 })),
      );

      const reads = await Promise.all(created.map((response) => api.get(ONE((response.json as Pet).id))));

      assert.deepEqual(
        reads.map((read) => [read.status, read.json]),
        created.map((response) => [200, response.json]),
      );
    }),
    creating(
      `PATCH ${CREATE}/{id} of the status answers 200 with a new ETag, and the pet moves between status listings`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'moving');

        const changed = await patch(api, pet.id, { status: 'sold' }, { 'If-Match': etag });

        assert.equal(changed.status, 200, changed.text);
        assert.deepEqual(changed.json, { ...pet, status: 'sold' });
        assert.ok(/^"[!#-~]*"$/.test(changed.headers.get('etag') ?? ''), 'a strong ETag');
        assert.notEqual(changed.headers.get('etag'), etag);
        assert.equal((await api.get(ONE(pet.id))).headers.get('etag'), changed.headers.get('etag'));
        assert.deepEqual(
          [await listed(api, 'sold', pet.id), await listed(api, 'available', pet.id)],
          [true, false],
        );
      },
    ),
    creating(
      `PATCH ${CREATE}/{id} under a stale If-Match, or of nothing, is refused and changes nothing`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'stale');
        const moved = await patch(api, pet.id, { categoryId: 5 }, { 'If-Match': etag });

        assertError(
          await patch(api, pet.id, { status: 'pending' }, { 'If-Match': etag }),
          412,
          'PRECONDITION_FAILED',
        );
        assertError(
          await patch(api, pet.id, { status: 'pending' }, { 'If-Match': `W/${etag}` }),
          412,
          'PRECONDITION_FAILED',
        );
        assertError(await patch(api, pet.id, {}), 400, 'VALIDATION_FAILED');
        assertError(
          await patch(api, pet.id, { status: 'sold' }, { 'If-Match': 'unquoted' }),
          400,
          'VALIDATION_FAILED',
        );
        const read = await api.get(ONE(pet.id));
        assert.deepEqual([read.json, read.headers.get('etag')], [moved.json, moved.headers.get('etag')]);
      },
    ),
    creating(
      `GET ${CREATE}/{id} under an If-None-Match naming its ETag answers 304 with the ETag and no body; under If-Match naming another, 412`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'cached');
        const read = (headers: Record<string, string>) => api.get(ONE(pet.id), { headers });

        const notModified = [
          await read({ 'If-None-Match': etag }),
          await read({ 'If-None-Match': `"0", W/${etag}` }),
          await read({ 'If-None-Match': '*' }),
          await read({ 'If-Match': etag, 'If-None-Match': etag }),
        ];
        const other = await read({ 'If-None-Match': '"0"' });

        for (const answer of notModified) {
          assert.deepEqual([answer.status, answer.text, answer.headers.get('etag')], [304, '', etag]);
        }
        assert.deepEqual([other.status, other.json, other.headers.get('etag')], [200, pet, etag]);
        // If-Match first (RFC 9110 §13.2.2), compared strongly: a weak tag never matches.
        assertError(await read({ 'If-Match': '"0"', 'If-None-Match': etag }), 412, 'PRECONDITION_FAILED');
        assertError(await read({ 'If-Match': `W/${etag}` }), 412, 'PRECONDITION_FAILED');
      },
    ),
    creating(
      `PATCH and DELETE ${CREATE}/{id} under an If-None-Match naming its ETag (weakly too) or *: 412, and nothing changes`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'none-match');
        const remove = (headers: Record<string, string>) =>
          api.request(ONE(pet.id), { method: 'DELETE', headers });

        for (const ifNoneMatch of [etag, `W/${etag}`, '*']) {
          assertError(
            await patch(api, pet.id, { status: 'sold' }, { 'If-None-Match': ifNoneMatch }),
            412,
            'PRECONDITION_FAILED',
          );
          assertError(await remove({ 'If-None-Match': ifNoneMatch }), 412, 'PRECONDITION_FAILED');
        }
        const read = await api.get(ONE(pet.id));
        assert.deepEqual([read.json, read.headers.get('etag')], [pet, etag]);

        const changed = await patch(api, pet.id, { status: 'sold' }, { 'If-None-Match': '"0"' });
        assert.deepEqual([changed.status, changed.json], [200, { ...pet, status: 'sold' }]);
        assert.equal((await remove({ 'If-None-Match': etag })).status, 204);
      },
    ),
    creating(
      `PATCH and DELETE ${CREATE}/{id} under If-Match and If-None-Match of ${MAX_ENTITY_TAGS} tags each apply; one tag more is 400 naming the header, and nothing changes`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'many-tags');
        // `count` tags of versions the pet never reaches, its own ETag last among them when given.
        const tags = (count: number, own?: string) =>
          [
            ...Array.from({ length: own ? count - 1 : count }, (_, index) => `"${1_000 + index}"`),
            ...(own ? [own] : []),
          ].join(', ');
        const remove = (headers: Record<string, string>) =>
          api.request(ONE(pet.id), { method: 'DELETE', headers });

        for (const header of ['If-Match', 'If-None-Match']) {
          const tooMany = tags(MAX_ENTITY_TAGS + 1, etag);
          for (const refused of [
            await patch(api, pet.id, { status: 'sold' }, { [header]: tooMany }),
            await remove({ [header]: tooMany }),
          ]) {
            assertError(refused, 400, 'VALIDATION_FAILED');
            assert.deepEqual(
              detailsOf(refused).map(({ field }) => field),
              [`headers.${header.toLowerCase()}`],
            );
          }
        }
        const read = await api.get(ONE(pet.id));
        assert.deepEqual([read.json, read.headers.get('etag')], [pet, etag]);

        const conditions = {
          'If-Match': tags(MAX_ENTITY_TAGS, etag),
          'If-None-Match': tags(MAX_ENTITY_TAGS),
        };
        const changed = await patch(api, pet.id, { status: 'sold' }, conditions);
        assert.deepEqual([changed.status, changed.json], [200, { ...pet, status: 'sold' }], changed.text);
        const newEtag = changed.headers.get('etag') ?? '';
        const removed = await remove({
          'If-Match': tags(MAX_ENTITY_TAGS, newEtag),
          'If-None-Match': tags(MAX_ENTITY_TAGS),
        });
        assert.equal(removed.status, 204, removed.text);
      },
    ),
    creating(
      `PATCH ${CREATE}/{id} ten times at once under one ETag: exactly one 200, nine 412`,
      async ({ api }) => {
        const { pet, etag } = await ownPet(api, 'race');

        const answers = await Promise.all(
          Array.from({ length: 10 }, () => patch(api, pet.id, { status: 'pending' }, { 'If-Match': etag })),
        );

        assert.deepEqual(answers.map((answer) => answer.status).sort(), [
          200,
          ...Array.from({ length: 9 }, () => 412),
        ]);
      },
    ),
    creating(
      `DELETE ${CREATE}/{id} answers 204 then 404; under a stale If-Match 412, and the pet stays; a create replays after it`,
      async ({ api }) => {
        const key = { 'Idempotency-Key': `smoke-${crypto.randomUUID()}` };
        const body = { name: smokeName('removed'), categoryId: 2 };
        const created = await api.post(CREATE, body, { headers: key });
        const { id } = created.json as Pet;
        const etag = created.headers.get('etag') ?? '';
        await patch(api, id, { status: 'pending' });

        assertError(
          await api.request(ONE(id), { method: 'DELETE', headers: { 'If-Match': etag } }),
          412,
          'PRECONDITION_FAILED',
        );
        assert.equal((await api.get(ONE(id))).status, 200);
        const removed = await api.request(ONE(id), { method: 'DELETE' });

        assert.deepEqual([removed.status, removed.text], [204, '']);
        assertError(await api.request(ONE(id), { method: 'DELETE' }), 404, 'NOT_FOUND');
        assertError(await api.get(ONE(id)), 404, 'NOT_FOUND');
        const replayed = await api.post(CREATE, body, { headers: key });
        assert.deepEqual([replayed.status, replayed.json], [201, created.json]);
      },
    ),
  ],
};
