import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { type LocalStack, startLocalStack } from '#tools/local/local-stack';
import { buildDocument } from '#tools/openapi/build-document';
import { referenceRoutes } from '#tools/openapi/reference';

/** What `npm start` serves besides the API: the reference for people and the document for tools. */

let stack: LocalStack;
let dataDir: string;
let origin: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'petstore-reference-test-'));
  stack = await startLocalStack({
    dataDir,
    port: 0,
    dynamoDbEndpoint: inject('dynamoDbEndpoint'),
    staticRoutes: referenceRoutes(),
  });
  origin = new URL(stack.gateway.baseUrl).origin;
});
afterAll(async () => {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the local server', () => {
  it('serves the HTML API reference at /docs, without a key, with no script from elsewhere', async () => {
    const response = await fetch(`${origin}/docs`);
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain('<title>Pet Store API reference</title>');
    expect(html).toContain('listPets');
    // Works offline: Redoc is inlined, never loaded from a CDN.
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
  });

  it('serves the document it runs by as /openapi.json and /openapi.yaml', async () => {
    const json = await fetch(`${origin}/openapi.json`);
    const yaml = await fetch(`${origin}/openapi.yaml`);
    const expected = await buildDocument();

    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(await json.json()).toEqual(expected);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    expect(parse(await yaml.text())).toEqual(expected);
  });

  it('serves the page on its own routes too, so reloading /docs/animals works', async () => {
    const page = await fetch(`${origin}/docs/animals`);

    expect(page.status).toBe(200);
    expect(await page.text()).toContain('"routingBasePath":"/docs"');
  });

  it('still guards the API: /v1 needs a key, other paths and methods are 404', async () => {
    expect((await fetch(`${stack.gateway.baseUrl}/pets`)).status).toBe(401);
    expect((await fetch(`${origin}/documents`)).status).toBe(404);
    expect((await fetch(`${origin}/docs`, { method: 'POST' })).status).toBe(404);
  });
});
