/**
 * Put in place of `node:http` in every Lambda bundle (infra/bundling.ts, `alias`). The SDK's HTTP
 * handler loads it with `import('node:http')` at its first request (and the instance metadata
 * region lookup would, which Lambda never makes). An ESM import of a built-in makes Node read every
 * export of it, and on Node 22 and later `node:http` has lazy ones (`WebSocket`, `MessageEvent`,
 * `CloseEvent`) that load Node's fetch implementation (undici), and with it `http2`,
 * `worker_threads`, `assert`, `perf_hooks`, `zlib`: about 75 modules, none of which one HTTP/1.1
 * request to DynamoDB uses, at every cold start's first call. The module itself, taken as
 * CommonJS code takes it (`process.getBuiltinModule`), is the very same object without the rest
 * (test/infra/bundling.test.ts; docs/decisions/0005-environment-credentials-only.md measures it).
 */
const http = process.getBuiltinModule('node:http');

export default http;
export const { Agent, request } = http;
