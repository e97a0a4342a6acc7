import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The tests `npm run test:mutation` (Stryker, stryker.config.mjs) runs against each mutant: the
 * in-process unit and integration projects, and the HTTP files that run the local gateway in-process
 * on loopback alone. Left out: the rest of the HTTP project, and the infra and browser projects (they
 * start servers, processes or a CDK app per file and would multiply the run time), the bench
 * harness test (17 s), the cost model test (the bench's measurements and a CDK app) and the
 * `npm run keys` test (it spawns the command): what they check is outside the mutated scope, and
 * the adapters they go through are tested on their own.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * Stryker stops a mutant's run at its first failing test, so the order decides the run time:
 * files that failed last time first (a neighbouring mutant is often killed by the same test), then
 * the unit project before the integration one, then the quickest files first. (Vitest's own order
 * runs the slowest first.)
 */
class QuickFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const state = (file: TestSpecification) =>
      cache.getFileTestResults(
        `${file.project.name}:${file.moduleId.slice(this.ctx.config.root.length + 1)}`,
      );
    const rank = (file: TestSpecification) => [
      state(file)?.failed ? 0 : 1,
      file.project.name === 'unit' ? 0 : 1,
      state(file)?.duration ?? Number.POSITIVE_INFINITY,
    ];
    return [...files].sort((a, b) => {
      const [ra, rb] = [rank(a), rank(b)];
      for (let index = 0; index < ra.length; index += 1) {
        const difference = (ra[index] as number) - (rb[index] as number);
        if (difference !== 0 && !Number.isNaN(difference)) return difference;
      }
      return 0;
    });
  }
}

export default defineConfig({
  test: {
    env: { AWS_EC2_METADATA_DISABLED: 'true' },
    sequence: { sequencer: QuickFirst },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [
            'test/integration/**/*.test.ts',
            // In-process too: the local gateway, its functions and their logs, over loopback HTTP.
            'test/http/data-access.test.ts',
            'test/http/gateway-server.test.ts',
            'test/http/request-logs.test.ts',
          ],
          exclude: [
            'test/integration/bench-quick.test.ts',
            'test/integration/cost-model.test.ts',
            'test/integration/keys.test.ts',
          ],
          globalSetup: ['test/support/dynamodb-global-setup.ts'],
        },
      },
    ],
  },
});
