import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import type { ObservedExchange } from '#tools/contract/api-client';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * Items that are not pets, in the pets table (a console edit, another tool, a bug): the service
 * reads them with the Pet schema and never serves one, through the running local server.
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('stored-items');
  const raw = createLocalClient(api.tables.endpoint);
  await raw.send(
    new PutItemCommand({
      TableName: api.tables.names.pets,
      Item: { id: { N: '7' }, name: { N: '5' }, status: { S: 'zombie' } },
    }),
  );
  raw.destroy();
});
afterAll(() => api.close());

const expectInternalError = (response: ObservedExchange) => {
  expect(response.status).toBe(500);
  expect(response.json).toMatchObject({ code: 'INTERNAL_ERROR', message: 'An internal error occurred' });
  expect(response.text).not.toContain('zombie');
};

describe('a malformed item in the pets table', () => {
  it('is never served by id: 500 INTERNAL_ERROR, its content not echoed', async () => {
    expectInternalError(await api.client.get('/pets/7'));
  });

  it('is never served in a listing: the page that would hold it is a 500, not a page without it', async () => {
    expectInternalError(await api.client.get('/pets'));
  });

  it('leaves the other pets served', async () => {
    const created = await api.client.post('/pets', { name: 'Fine', categoryId: 1, status: 'sold' });

    const listed = await api.client.get('/pets?status=sold');

    expect(listed.status).toBe(200);
    expect(listed.json).toEqual([created.json]);
  });
});
