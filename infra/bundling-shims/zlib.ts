/**
 * Put in place of `node:zlib` in every Lambda bundle (infra/bundling.ts, `alias`). The SDK's
 * checksums module imports it at load for `crc32`, which only event streams and flexible checksums
 * use (DynamoDB's calls use neither); Node then loads its compression streams at every cold start.
 * Here `crc32` is Node's own, loaded the first time it is called, if ever
 * (test/infra/bundling.test.ts).
 */
export const crc32 = (data: string | NodeJS.ArrayBufferView, value?: number): number =>
  process.getBuiltinModule('node:zlib').crc32(data, value);
