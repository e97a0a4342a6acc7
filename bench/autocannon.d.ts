/** The part of autocannon's API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    readonly url: string;
    readonly connections?: number;
    readonly duration?: number;
    readonly amount?: number;
    readonly method?: 'GET' | 'POST';
    readonly headers?: Record<string, string>;
    readonly body?: string;
    readonly timeout?: number;
    /** Milliseconds between samples; a run bounded by `amount` ends at the first sample after it. */
    readonly sampleInt?: number;
  }

  export interface Result {
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly duration: number;
  }

  /** Emits `response` (client, statusCode, bytes, responseTime in ms) for every response. */
  export interface Instance extends EventEmitter, PromiseLike<Result> {}

  export default function autocannon(options: Options): Instance;
}
