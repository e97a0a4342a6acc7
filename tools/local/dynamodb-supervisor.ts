import {
  type DynamoDbLocal,
  type DynamoDbLocalOptions,
  type ProcessExit,
  startDynamoDbLocal,
} from '#tools/local/dynamodb-local';

/**
 * DynamoDB Local kept running under `npm start`: when its Java process ends without being asked
 * to (killed, crashed, out of memory), it is started again on the same port with the same data
 * directory, so the functions' endpoint stays valid and no pet is lost; each step is logged. If
 * it cannot be started again, or keeps ending (3 times within a minute), the supervisor gives up
 * and says why, for the server to exit rather than answer 503 forever.
 */

export interface SupervisorOptions {
  readonly dataDir: string;
  /** After a restart, before requests reach it: e.g. the tables and the key, should they be missing. */
  readonly onRestart: (endpoint: string) => Promise<void>;
  /** A DynamoDB Local started, the first or a new one: its PID, e.g. for the data directory's lock. */
  readonly onStart?: (pid: number | undefined) => void;
  /** The supervisor gave up: the message says why. */
  readonly onGiveUp: (message: string) => void;
  readonly log: (line: string) => void;
  /** @default 3 */
  readonly maxRestarts?: number;
  /** @default 60_000 */
  readonly windowMs?: number;
  /**
   * Starts a DynamoDB Local. @default startDynamoDbLocal (another only in tests: a Java process
   * cannot be made to crash three times a minute on demand)
   */
  readonly start?: (options: DynamoDbLocalOptions) => Promise<DynamoDbLocal>;
}

export interface SupervisedDynamoDbLocal {
  readonly endpoint: string;
  /** The Java process running now. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

const describeExit = ({ code, signal }: ProcessExit): string =>
  signal ? `ended by ${signal}` : `exited with code ${code}`;

export const superviseDynamoDbLocal = async (
  options: SupervisorOptions,
): Promise<SupervisedDynamoDbLocal> => {
  const maxRestarts = options.maxRestarts ?? 3;
  const windowMs = options.windowMs ?? 60_000;
  const start = options.start ?? startDynamoDbLocal;
  let current: DynamoDbLocal = await start({ dataDir: options.dataDir });
  options.onStart?.(current.pid);
  const { port, endpoint } = current;
  let stopped = false;
  const restarts: number[] = [];

  const watch = (database: DynamoDbLocal): void => {
    void database.exited.then(async (exit) => {
      if (stopped || database.stopping) return;
      const now = Date.now();
      restarts.push(now);
      while ((restarts[0] ?? now) < now - windowMs) restarts.shift();
      if (restarts.length > maxRestarts) {
        options.onGiveUp(
          `DynamoDB Local ${describeExit(exit)}, its ${restarts.length}th stop within ${windowMs / 1000} s: giving up. Its data is in ${options.dataDir}.`,
        );
        return;
      }
      options.log(
        `DynamoDB Local ${describeExit(exit)}; starting it again on port ${port} with the data in ${options.dataDir}`,
      );
      try {
        current = await start({ port, dataDir: options.dataDir });
        options.onStart?.(current.pid);
        if (stopped) {
          await current.stop();
          return;
        }
        await options.onRestart(endpoint);
        options.log(`DynamoDB Local is back at ${endpoint}`);
        watch(current);
      } catch (error) {
        options.onGiveUp(
          `DynamoDB Local ${describeExit(exit)} and could not be started again: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
  };
  watch(current);

  return {
    endpoint,
    get pid() {
      return current.pid;
    },
    stop: async () => {
      stopped = true;
      await current.stop();
    },
  };
};
