import { describe, expectTypeOf, it } from 'vitest';
import { createPet } from '#functions/create-pet';
import { deletePet } from '#functions/delete-pet';
import { getPet } from '#functions/get-pet';
import type { listPets } from '#functions/list-pets';
import type { Pet } from '#shared/domain/pet';
import { type EndpointHandler, type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { jsonEndpoint } from '#shared/http/middleware/json-body';
import { created, noContent, notModified, ok } from '#shared/http/responses';
import type { HttpMethod, RequestInput, ResultOf } from '#shared/operations/operation';

/**
 * What the contract model promises at compile time, one mechanism for each guarantee:
 *
 * - `ResultOf` (shared/operations/operation.ts): a handler can only answer with a status its
 *   contract declares, with that response's body type (or none), and with its required headers;
 * - `RequestInput`: a handler's input is the output of its contract's request schemas, the same
 *   schemas validation parses the request with;
 * - the operation each endpoint takes (`httpEndpoint`: one without a body; `jsonEndpoint`: one
 *   with a body, read by the JSON body checks and parser): no body goes unread, and no function
 *   that reads none carries a parser;
 * - `HttpMethod`: a contract has a method of RFC 9110 an API uses.
 *
 * `npm run check:types` (tsc, the first step of `npm test`) checks this file: each expectation
 * must hold and each `@ts-expect-error` line must be an error, or the check fails. (Vitest's own
 * typecheck mode would run the same tsc again, for 45 s more on this machine.)
 */

const pet: Pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };

describe('a handler result', () => {
  it('has exactly the statuses its contract declares', () => {
    expectTypeOf<ResultOf<typeof getPet>['status']>().toEqualTypeOf<200 | 304>();
    expectTypeOf<ResultOf<typeof createPet>['status']>().toEqualTypeOf<201>();
    expectTypeOf<ResultOf<typeof deletePet>['status']>().toEqualTypeOf<204>();
  });

  it('carries the body type of its response schema', () => {
    expectTypeOf(ok(pet, { ETag: '"1"' })).toExtend<ResultOf<typeof getPet>>();
    expectTypeOf(ok([pet])).toExtend<ResultOf<typeof listPets>>();
    expectTypeOf<Extract<ResultOf<typeof getPet>, { status: 200 }>['body']>().toEqualTypeOf<Pet>();
    expectTypeOf(notModified({ ETag: '"1"' })).toExtend<ResultOf<typeof getPet>>();
  });

  it('refuses a status the contract does not declare', () => {
    // @ts-expect-error getPet declares 200 and 304 only
    const created201: ResultOf<typeof getPet> = { status: 201, body: pet };
    // @ts-expect-error deletePet declares 204 only
    const ok200: ResultOf<typeof deletePet> = ok(pet);
    // @ts-expect-error a 304 names the version the client holds: its ETag
    const untagged: ResultOf<typeof getPet> = { status: 304 };
    expectTypeOf(untagged).not.toBeAny();
    expectTypeOf(created201).not.toBeAny();
    expectTypeOf(ok200).not.toBeAny();
  });

  it('refuses a body its schema does not describe', () => {
    // @ts-expect-error a list answers an array of pets, not one pet
    const one: ResultOf<typeof listPets> = ok(pet);
    // @ts-expect-error a pet's id is a number
    const badId: ResultOf<typeof getPet> = ok({ ...pet, id: '1' }, { ETag: '"1"' });
    expectTypeOf(one).not.toBeAny();
    expectTypeOf(badId).not.toBeAny();
  });

  it('refuses a body on a response that has none, and accepts none', () => {
    expectTypeOf(noContent()).toExtend<ResultOf<typeof deletePet>>();
    // @ts-expect-error a 204 has no body
    const withBody: ResultOf<typeof deletePet> = { status: 204, body: pet };
    expectTypeOf(withBody).not.toBeAny();
  });

  it('requires the headers its response marks required (Location and ETag on createPet’s 201, ETag on getPet’s 200)', () => {
    expectTypeOf(created(pet, { Location: '/v1/pets/1', ETag: '"1"' })).toExtend<
      ResultOf<typeof createPet>
    >();
    // @ts-expect-error Location is required on 201
    const noLocation: ResultOf<typeof createPet> = { status: 201, body: pet, headers: { ETag: '"1"' } };
    // @ts-expect-error ETag is required on getPet's 200
    const noEtag: ResultOf<typeof getPet> = ok(pet);
    expectTypeOf(noLocation).not.toBeAny();
    expectTypeOf(noEtag).not.toBeAny();
  });

  it('is what an endpoint handler must resolve to', () => {
    // @ts-expect-error getPet's handler cannot answer 204
    const handler: EndpointHandler<typeof getPet> = async () => noContent();
    expectTypeOf(handler).not.toBeAny();
  });
});

describe('an endpoint', () => {
  const dependencies = {} as FunctionDependencies;
  const answer = async () => created(pet, { Location: '/v1/pets/1', ETag: '"1"' });

  it('reads a JSON body exactly when its operation has one: jsonEndpoint for it, httpEndpoint for the others', () => {
    expectTypeOf(jsonEndpoint(createPet, dependencies, answer)).toBeFunction();
    expectTypeOf(httpEndpoint(getPet, dependencies, async () => ok(pet, { ETag: '"1"' }))).toBeFunction();
    // @ts-expect-error createPet reads a body: httpEndpoint would pass it on unchecked and unparsed
    const unread = httpEndpoint(createPet, dependencies, answer);
    // @ts-expect-error getPet reads no body: a parser would only weigh on its bundle
    const needless = jsonEndpoint(getPet, dependencies, async () => ok(pet, { ETag: '"1"' }));
    expectTypeOf(unread).not.toBeAny();
    expectTypeOf(needless).not.toBeAny();
  });
});

describe('a handler input', () => {
  it('is the output of each request part schema', () => {
    expectTypeOf<RequestInput<typeof getPet>['path']['petId']>().toEqualTypeOf<number>();
    expectTypeOf<RequestInput<typeof listPets>['query']['limit']>().toEqualTypeOf<number>();
    expectTypeOf<RequestInput<typeof createPet>['body']['name']>().toEqualTypeOf<string>();
  });
});

describe('a contract', () => {
  it('can have any method of RFC 9110 an API uses, and no other', () => {
    expectTypeOf<HttpMethod>().toEqualTypeOf<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>();
    expectTypeOf(deletePet.method).toEqualTypeOf<'DELETE'>();
  });
});
