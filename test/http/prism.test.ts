import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type LocalStack, startLocalStack } from '#tools/local/local-stack';
import { readCommittedYaml } from '#tools/openapi/document-file';
import { checkThroughPrism } from '#tools/openapi/prism-check';

/**
 * A second, independent judge of the contract: Prism, as a validating proxy in front of the
 * local stack (`npm run test:prism` runs the same check on its own DynamoDB Local).
 */

let stack: LocalStack;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'petstore-prism-test-'));
  stack = await startLocalStack({ dataDir, port: 0, dynamoDbEndpoint: inject('dynamoDbEndpoint') });
});
afterAll(async () => {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the service through Prism', () => {
  it('draws no violation from Prism in any operation, success or error', async () => {
    const report = await checkThroughPrism({ upstream: stack.gateway.baseUrl, apiKey: stack.apiKey });

    expect(report.failures).toEqual([]);
    expect(report.results.map((result) => result.status).sort()).toEqual(
      [
        200, 200, 200, 200, 201, 201, 201, 400, 400, 400, 400, 400, 400, 400, 400, 401, 401, 401, 404, 413,
        415, 422,
      ].sort(),
    );
  });

  it('fails when the service and the document disagree', async () => {
    // The same service against a document that demands one more field of every Pet.
    const document = parse(readCommittedYaml()) as {
      components: { schemas: { Pet: { required: string[] } } };
    };
    document.components.schemas.Pet.required.push('owner');
    const stricter = join(dataDir, 'stricter.yaml');
    writeFileSync(stricter, stringify(document));

    const report = await checkThroughPrism({
      upstream: stack.gateway.baseUrl,
      apiKey: stack.apiKey,
      document: stricter,
    });

    expect(report.failures).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^getPet 200 \(deprecated\): response violation .*'owner'/),
      ]),
    );
  });
});
