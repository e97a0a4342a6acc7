/** Hands out pet ids: unique, increasing, never reused, safe under concurrent callers. */
export interface IdSequence {
  next(): Promise<number>;
}
