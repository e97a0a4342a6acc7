import type { LambdaFunction } from '#shared/composition/function';
import { readFunctionConfig } from '#shared/config';

/**
 * A function's handler, configured from the environment Lambda gives it (fails fast on a gap):
 * every generated Lambda entry calls it. Apart from function.ts, whose table uses bring the
 * DynamoDB client: a function without tables (the events publisher) bundles no DynamoDB client.
 */
export const fromEnvironment = <H>(fn: Pick<LambdaFunction<H>, 'build' | 'tables'>): H =>
  fn.build(readFunctionConfig(fn.tables));
