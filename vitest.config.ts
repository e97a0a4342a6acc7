import { defineConfig } from 'vitest/config';

const dynamoDbSetup = ['test/support/dynamodb-global-setup.ts'];

export default defineConfig({
  test: {
    // Nothing under test may reach AWS: entry modules built at import point at a dead local port.
    env: {
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
      PETS_TABLE_NAME: 'unconfigured-pets',
      COUNTERS_TABLE_NAME: 'unconfigured-counters',
      API_KEYS_TABLE_NAME: 'unconfigured-apikeys',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    coverage: {
      provider: 'v8',
      include: ['functions/**', 'shared/**', 'infra/**'],
      reporter: ['text-summary', 'html'],
    },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: dynamoDbSetup },
      },
      {
        extends: true,
        test: {
          name: 'http',
          include: ['test/http/**/*.test.ts'],
          globalSetup: dynamoDbSetup,
          setupFiles: ['test/support/conformance-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        // One CDK app build per worker, shared by the template test files (see test/support/pet-store-app.ts).
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 60_000, isolate: false },
      },
    ],
  },
});
