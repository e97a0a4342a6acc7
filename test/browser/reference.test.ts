import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalStack, startLocalStack } from '#tools/local/local-stack';
import { referenceRoutes } from '#tools/openapi/reference';
import { launchChromium } from '../support/browser';

/** The API reference `npm start` serves at /docs, rendered by a real browser, offline. */

let stack: LocalStack;
let dataDir: string;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const requestedHosts = new Set<string>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'petstore-browser-reference-'));
  [stack, browser] = await Promise.all([
    startLocalStack({
      dataDir,
      port: 0,
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      staticRoutes: referenceRoutes(),
    }),
    launchChromium(),
  ]);
  page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  // Every request the page makes, by host; any host but the server's is refused, as offline.
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    requestedHosts.add(url.hostname);
    return url.hostname === '127.0.0.1' ? route.continue() : route.abort();
  });
  await page.goto(`${new URL(stack.gateway.baseUrl).origin}/docs`, { waitUntil: 'load' });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the API reference at /docs', () => {
  it('lists the three operations under the animals tag', async () => {
    await page.getByText('animals', { exact: true }).first().click();

    for (const summary of ['List animals', 'Add an animal', 'Get an animal (deprecated)']) {
      // The tag opens after the click: wait for it to render (a busy machine takes a while).
      const entry = page.getByText(summary, { exact: true }).first();
      await entry.waitFor({ state: 'visible' });
      await expect(entry.isVisible()).resolves.toBe(true);
    }
  });

  it('shows an operation with its Error responses and the fields of the Error object', async () => {
    await page.getByText('Get an animal (deprecated)', { exact: true }).first().click();
    await page.getByRole('button', { name: /^404/ }).first().click();

    for (const field of ['code', 'message', 'status', 'requestId']) {
      await expect(page.getByText(field, { exact: true }).first().isVisible()).resolves.toBe(true);
    }
    await expect(page.getByText('NOT_FOUND').first().isVisible()).resolves.toBe(true);
  });

  it('renders without a console error', () => {
    expect(consoleErrors).toEqual([]);
  });

  it('loads everything from the server itself: nothing leaves 127.0.0.1', () => {
    expect([...requestedHosts]).toEqual(['127.0.0.1']);
  });
});
