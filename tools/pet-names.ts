/** Name prefixes of the tools' own pets (docs/deploy.md, "Example and smoke pets"). */

/** Every pet the contract suite (`npm run smoke`, the HTTP tests) creates: `smoke-<check>-<8 hex>`. */
export const SMOKE_PREFIX = 'smoke-';

/** Every example pet `npm run seed` adds: `example-<name>`. */
export const EXAMPLE_PREFIX = 'example-';
