import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import type { StaticRoutes } from '#tools/local/static-files';

/**
 * The local gateway's answers that no function or authorizer takes part in: a path it has no resource
 * for, the CORS preflight. Both fail the test if called.
 */

const never = (what: string) => () => {
  throw new Error(`${what} was called`);
};

let gateway: LocalGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const start = async (staticRoutes: Promise<StaticRoutes>) => {
  gateway = await startLocalGateway({
    port: 0,
    authorizer: never('the authorizer') as unknown as TokenAuthorizerHandler,
    handlers: { listPets: never('listPets') as unknown as ProxyHandler },
    staticRoutes,
  });
  return gateway;
};

describe('the local gateway without a function', () => {
  it('answers a path it has no resource for with a plain 404 when its static files failed to build', async () => {
    const failed = Promise.reject(new Error('the reference did not build'));
    failed.catch(() => undefined);
    const { baseUrl } = await start(failed);

    const response = await fetch(`${baseUrl}/toys`);

    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', message: 'No such resource' });
  });

  it('refuses a preflight whose Content-Type no mock template takes with 415, without a key', async () => {
    const { baseUrl } = await start(Promise.resolve({}));

    const response = await fetch(`${baseUrl}/pets`, {
      method: 'OPTIONS',
      headers: { 'Content-Type': 'text/csv', Origin: 'http://localhost:5173' },
    });

    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});
