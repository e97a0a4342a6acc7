import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizerFunction } from '#functions/authorizer';
import { OPERATIONS } from '#functions/operations';
import { publishPetEventsFunction } from '#functions/publish-pet-events';
import { esbuildOptions } from '#infra/bundling';
import { lambdaEntry } from '#infra/lambda-entries';
import { PROJECT_ROOT } from '#infra/project-root';

/**
 * What each function's bundle carries, read from esbuild's metafile of the stack's own build
 * options: a function pays at every cold start for each kilobyte it carries, so it carries only
 * what its operation uses (docs/decisions/0004-what-moved-the-cold-start.md prices each part).
 */

const FUNCTIONS = [...OPERATIONS, authorizerFunction, publishPetEventsFunction];

/** The input files of each function's bundle, by function name. */
let inputsOf: Map<string, string[]>;
/** What each function's bundle imports at run time (Node's modules), by function name. */
let importsOf: Map<string, string[]>;

beforeAll(async () => {
  const { entryPoints: _entry, outfile: _outfile, ...options } = esbuildOptions('<entry>', '<outfile>');
  // One build for all of them (esbuild parses the SDK once); nothing is written.
  const { metafile } = await build({
    ...options,
    entryPoints: Object.fromEntries(
      FUNCTIONS.map((root) => [root.name, join(PROJECT_ROOT, lambdaEntry(root))]),
    ),
    outdir: join(PROJECT_ROOT, '.bundle-contents'),
    absWorkingDir: PROJECT_ROOT,
    write: false,
    metafile: true,
  });
  const outputs = Object.values((metafile as Metafile).outputs)
    .filter((output) => output.entryPoint)
    .map((output) => {
      const root = FUNCTIONS.find((candidate) => output.entryPoint === lambdaEntry(candidate));
      if (!root) throw new Error(`No function for the output of ${output.entryPoint}`);
      return { name: root.name, output };
    });
  inputsOf = new Map(
    outputs.map(({ name, output }) => [
      name,
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path),
    ]),
  );
  importsOf = new Map(outputs.map(({ name, output }) => [name, output.imports.map(({ path }) => path)]));
}, 60_000);

const carries = (name: string, part: string): boolean =>
  (inputsOf.get(name) ?? []).some((input) => input.includes(part));

describe("each function's bundle", () => {
  it('is built for every function', () => {
    expect([...inputsOf.keys()].sort()).toEqual(FUNCTIONS.map((root) => root.name).sort());
  });

  it.each(OPERATIONS.map((root) => [root.name, 'body' in root.operation.request] as const))(
    '%s carries a JSON body parser only if its operation reads a body (reads one: %s)',
    (name, readsBody) => {
      expect(carries(name, 'node_modules/@middy/http-json-body-parser/')).toBe(readsBody);
      expect(carries(name, 'shared/http/middleware/json-body.ts')).toBe(readsBody);
    },
  );

  it.each(
    OPERATIONS.map((root) => [root.name, Object.values(root.uses).some((use) => 'listings' in use)] as const),
  )('%s carries the cursor codec only if it lists (lists: %s)', (name, lists) => {
    expect(carries(name, 'shared/http/cursor.ts')).toBe(lists);
  });

  it.each(FUNCTIONS.map((root) => [root.name, root.name === 'createPet'] as const))(
    '%s carries Powertools Metrics only if it publishes a business metric (PetsCreated: %s)',
    (name, publishes) => {
      expect(carries(name, 'node_modules/@aws-lambda-powertools/metrics/')).toBe(publishes);
    },
  );

  it.each(FUNCTIONS.map((root) => root.name))(
    '%s imports no part of Node that only a streamed response uses',
    (name) => {
      expect(importsOf.get(name)).not.toContain('node:stream/web');
    },
  );

  it.each(FUNCTIONS.map((root) => root.name))(
    "%s carries no credential provider but the environment's: none Lambda never uses, nor the STS and SSO clients they call",
    (name) => {
      const neverUsedInLambda = [
        'node_modules/@aws-sdk/credential-provider-node/',
        'node_modules/@aws-sdk/credential-provider-ini/',
        'node_modules/@aws-sdk/credential-provider-sso/',
        'node_modules/@aws-sdk/credential-provider-process/',
        'node_modules/@aws-sdk/credential-provider-web-identity/',
        'node_modules/@aws-sdk/credential-provider-http/',
        'node_modules/@aws-sdk/credential-provider-login/',
        'node_modules/@smithy/credential-provider-imds/',
        'node_modules/@aws-sdk/token-providers/',
        'node_modules/@aws-sdk/nested-clients/',
      ];
      for (const part of neverUsedInLambda) expect(carries(name, part), part).toBe(false);
      expect(carries(name, 'node_modules/@aws-sdk/credential-provider-env/')).toBe(true);
    },
  );

  it.each(FUNCTIONS.map((root) => root.name))(
    '%s imports neither node:http nor node:zlib as an ES module (which would load fetch, HTTP/2, workers and compression streams)',
    (name) => {
      expect(importsOf.get(name)).not.toContain('node:http');
      expect(importsOf.get(name)).not.toContain('node:zlib');
    },
  );

  it('of the authorizer carries no request parsing or validation and no metrics', () => {
    const parts = [
      'node_modules/@middy/http-',
      'node_modules/valibot/',
      'node_modules/@aws-lambda-powertools/metrics/',
      'shared/http/middleware/validate-request.ts',
    ];
    for (const part of parts) expect(carries('authorizer', part), part).toBe(false);
  });

  it('of the events publisher carries the EventBridge client and no DynamoDB client, no HTTP middleware', () => {
    const name = publishPetEventsFunction.name;
    expect(carries(name, 'node_modules/@aws-sdk/client-eventbridge/')).toBe(true);
    for (const part of [
      'node_modules/@aws-sdk/client-dynamodb/',
      'node_modules/@aws-sdk/lib-dynamodb/',
      'shared/adapters/dynamodb/client.ts',
      'node_modules/@middy/http-',
      'shared/http/',
    ])
      expect(carries(name, part), part).toBe(false);
    // And no API function carries the EventBridge client.
    for (const root of [...OPERATIONS, authorizerFunction])
      expect(carries(root.name, 'node_modules/@aws-sdk/client-eventbridge/'), root.name).toBe(false);
  });
});
