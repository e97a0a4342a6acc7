/**
 * Put in place of `node:stream/web` in every Lambda bundle (infra/bundling.ts, `alias`). Of that
 * module, the bundled code uses only `ReadableStream` (middy's core, to tell a streamed response),
 * and Node has it as a global without the rest of the module: importing `node:stream/web` also
 * loads its transform, compression and encoding streams: about 0.6 ms of every cold start on the
 * Lambda's Node, 1 ms of CPU (docs/decisions/0004-what-moved-the-cold-start.md). It is the very
 * same class (test/infra/bundling.test.ts).
 */
export const { ReadableStream } = globalThis;
