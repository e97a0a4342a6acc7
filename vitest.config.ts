import { defineConfig } from 'vitest/config';

const dynamoDbSetup = ['test/support/dynamodb-global-setup.ts'];

// The AWS SDK warns once per process that this machine's Node.js is older than the Lambda's; the
// tests know. Set before the global setups create their first client, in this process and, through
// the environment, in every process the tests start.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    // A safety net only: every test builds its clients for DynamoDB Local with dummy credentials,
    // so nothing looks for AWS credentials; were one to, it would not find the instance metadata.
    env: { AWS_EC2_METADATA_DISABLED: 'true' },
    coverage: {
      provider: 'v8',
      include: ['functions/**', 'shared/**', 'infra/**', 'tools/**'],
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
