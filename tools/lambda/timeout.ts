/** Free of project imports, as tools/lambda/context.ts is: any process may load it. */

export const TIMED_OUT = Symbol('timed out');

/** The handler's result, or TIMED_OUT after `timeoutMs` (Lambda's "Task timed out": later work reaches no one). */
export const withinTimeout = async <T>(
  invocation: Promise<T>,
  timeoutMs: number,
): Promise<T | typeof TIMED_OUT> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  // Its later failure is as unseen as its later result.
  invocation.catch(() => undefined);
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
};
