// @ts-check
/**
 * `npm run test:mutation`: StrykerJS over the service's code (shared/, functions/) and the local
 * gateway (tools/local/), against the in-process tests of vitest.mutation.config.ts. The score and
 * every surviving mutant are summarised in docs/mutation.md; the HTML report is written to
 * reports/mutation/ (git-ignored). Not part of `npm test`.
 *
 * Incremental by default (`npm run test:mutation` passes `--incremental`): the last run's result
 * per mutant and per test is kept in test/mutation/incremental.json, committed, so a run after a
 * change re-tests only the mutants of changed code and those whose covering tests changed.
 * `npm run test:mutation:full` (`--force`) tests every mutant again and rewrites the file.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'shared/**/*.ts',
    'functions/**/*.ts',
    'tools/local/**/*.ts',
    // The entry point of `npm start` and `npm run dev`: it runs at import, installs signal
    // handlers and exits the process, so only test/http/npm-start.test.ts runs it, as processes
    // whose coverage Stryker cannot see. What they call (settings, the start-up checks, the stack) is in scope.
    '!tools/local/start.ts',
    '!tools/local/server.ts',
    '!tools/local/dev-server.ts',
  ],
  coverageAnalysis: 'perTest',
  // Static mutants (code that runs when a module loads: the schemas, the constant tables, the
  // operation descriptors) are left out. Vitest loads every module afresh for each test file, so
  // Stryker cannot tell which tests cover such code and runs the whole suite for each of them:
  // about 800 mutants at 25 s or more each, hours on this machine. What checks them instead is
  // written out in docs/mutation.md.
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The floor of issue 13: a run under 85% fails.
  thresholds: { high: 90, low: 85, break: 85 },
  tempDirName: '.stryker-tmp',
  // What the sandbox need not copy: build output, local data, reports, the incremental results.
  ignorePatterns: ['cdk.out', 'coverage', '.data', '.bench', 'dist', 'docs/site', 'reports', 'test/mutation'],
  cleanTempDir: 'always',
  // Committed, unlike reports/: the next session's run starts from this one's results.
  incrementalFile: 'test/mutation/incremental.json',
};
