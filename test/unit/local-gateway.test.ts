import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import { CLIENT_TIMEOUTS, type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { TIMEOUT_CHECK_INTERVAL_MS } from '#tools/local/node-server';
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

describe("the local gateway's timeouts for a slow client", () => {
  it('are the ones docs/interface.md names, a minute for the headers and five for the whole request', () => {
    const documented = readFileSync(join(PROJECT_ROOT, 'docs/interface.md'), 'utf8');
    const seconds = (ms: number) => `${ms / 1_000} s`;

    expect(CLIENT_TIMEOUTS).toEqual({ headersTimeoutMs: 60_000, requestTimeoutMs: 300_000 });
    expect(documented).toContain(
      `headers (${seconds(CLIENT_TIMEOUTS.headersTimeoutMs)}) or a whole request (${seconds(CLIENT_TIMEOUTS.requestTimeoutMs)}) late, 408 within ${seconds(TIMEOUT_CHECK_INTERVAL_MS)}`,
    );
  });

  it("are Node's server settings, late requests looked for often enough to answer within a second of their time", async () => {
    const { server } = await start(Promise.resolve({}));

    expect([server.headersTimeout, server.requestTimeout]).toEqual([
      CLIENT_TIMEOUTS.headersTimeoutMs,
      CLIENT_TIMEOUTS.requestTimeoutMs,
    ]);
    // Node answers a late request at its first look after the timeout (its own default: every 30 s).
    const { connectionsCheckingInterval } = server as typeof server & { connectionsCheckingInterval: number };
    expect(connectionsCheckingInterval).toBe(TIMEOUT_CHECK_INTERVAL_MS);
    expect(connectionsCheckingInterval).toBeLessThanOrEqual(1_000);
  });
});
