import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { ROOMY_POLICY } from '../support/plans';

/**
 * A web page on another origin than the API, in a real browser (which alone enforces CORS):
 * it creates pets with an Idempotency-Key, lists them by following Link, reads a 401 and the
 * deprecation headers. Once with the local server allowing the page's origin (all of it works),
 * once with PETSTORE_CORS_ORIGINS naming another origin (the browser refuses every answer).
 */

const PAGE = readFileSync(new URL('./pages/pets.html', import.meta.url), 'utf8');

let browser: Browser;
let pageServer: Server;
let pageOrigin: string;

/** Serves the page on an origin of its own: another port of 127.0.0.1. */
const servePage = async () => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return server;
};

beforeAll(async () => {
  [browser, pageServer] = await Promise.all([launchChromium(), servePage()]);
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((closed) => pageServer.close(() => closed()));
});

/** The page, loaded from its origin, calling `name` with `args` against the API. */
const inPage = async (page: Page, name: string, ...args: unknown[]) =>
  page.evaluate(
    ([fn, rest]) => (globalThis as unknown as { attempt: (...a: unknown[]) => unknown }).attempt(fn, ...rest),
    [name, args] as const,
  ) as Promise<{ ok: boolean; value?: Record<string, unknown>; error?: string }>;

describe('a page on an origin the API allows', () => {
  let api: LocalApi;
  let page: Page;
  beforeAll(async () => {
    api = await startLocalApi('browser-allowed', { corsOrigins: [pageOrigin] });
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  });
  afterAll(() => api.close());

  it('creates a pet with an Idempotency-Key and reads its Location, then recognises the replay', async () => {
    const pet = { name: 'Browsed', categoryId: 3 };

    const first = await inPage(page, 'createPet', api.gateway.baseUrl, api.apiKey, pet, 'browser-key-1');
    const again = await inPage(page, 'createPet', api.gateway.baseUrl, api.apiKey, pet, 'browser-key-1');

    expect(first).toEqual({
      ok: true,
      value: {
        status: 201,
        location: expect.stringMatching(/^\/v1\/pets\/\d+$/),
        replayed: null,
        pet: { id: expect.any(Number), name: 'Browsed', categoryId: 3, status: 'available' },
      },
    });
    expect(again).toEqual({ ok: true, value: { ...first.value, replayed: 'true' } });
  });

  it('lists every pet by following Link, each once', async () => {
    for (const name of ['Page A', 'Page B', 'Page C']) {
      await inPage(page, 'createPet', api.gateway.baseUrl, api.apiKey, { name, categoryId: 1 }, name);
    }

    const listed = await inPage(page, 'listAll', api.gateway.baseUrl, api.apiKey, 2);

    const pets = (listed.value?.pets ?? []) as { id: number; name: string }[];
    expect(listed.ok).toBe(true);
    expect(listed.value?.pages).toBeGreaterThanOrEqual(2);
    expect(new Set(pets.map((pet) => pet.id)).size).toBe(pets.length);
    expect(pets.map((pet) => pet.name)).toEqual(expect.arrayContaining(['Page A', 'Page B', 'Page C']));
  });

  it("reads its plan's RateLimit-Policy and every answer's request id, a 401's (x-amz-apigw-id) included", async () => {
    const read = await inPage(page, 'fairUse', api.gateway.baseUrl, api.apiKey);

    expect(read.ok).toBe(true);
    expect(read.value?.policy).toBe(ROOMY_POLICY);
    expect(read.value?.requestId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(read.value?.refusedRequestId).toBe(read.value?.refusedBodyRequestId);
  });

  it('reads a 401 and its Error body', async () => {
    const refused = await inPage(page, 'withoutKey', api.gateway.baseUrl);

    expect(refused).toEqual({
      ok: true,
      value: { status: 401, error: expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }) },
    });
  });

  it('reads the deprecation headers of GET /pets/{petId}', async () => {
    const created = await inPage(
      page,
      'createPet',
      api.gateway.baseUrl,
      api.apiKey,
      { name: 'Old', categoryId: 1 },
      'old',
    );
    const id = (created.value as { pet: { id: number } }).pet.id;

    const read = await inPage(page, 'getPet', api.gateway.baseUrl, api.apiKey, id);

    expect(read.value).toMatchObject({
      status: 200,
      deprecation: '@1795219200',
      sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      link: '</v1/pets>; rel="successor-version"',
    });
  });
});

describe('a page on an origin the API does not allow', () => {
  let api: LocalApi;
  let page: Page;
  beforeAll(async () => {
    // As PETSTORE_CORS_ORIGINS naming another origin.
    api = await startLocalApi('browser-refused', { corsOrigins: ['http://localhost:5173'] });
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  });
  afterAll(() => api.close());

  it.each([
    ['createPet', () => [api.gateway.baseUrl, api.apiKey, { name: 'Nope', categoryId: 1 }, 'nope']],
    ['listAll', () => [api.gateway.baseUrl, api.apiKey, 2]],
    ['withoutKey', () => [api.gateway.baseUrl]],
    ['getPet', () => [api.gateway.baseUrl, api.apiKey, 1]],
  ] as const)('cannot read the answer to %s: the browser refuses it', async (name, args) => {
    const outcome = await inPage(page, name, ...args());

    expect(outcome).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
  });
});
