/**
 * Name prefixes of the pets the project's own tools create, so that operators can tell them from
 * real ones and find them (docs/deploy.md, "Example and smoke pets"). One place for both, read
 * by the contract suite, the seed command and their tests.
 */

/** Every pet the contract suite (`npm run smoke`, the HTTP tests) creates: `smoke-<check>-<8 hex>`. */
export const SMOKE_PREFIX = 'smoke-';

/** Every example pet `npm run seed` adds: `example-<name>`. */
export const EXAMPLE_PREFIX = 'example-';
