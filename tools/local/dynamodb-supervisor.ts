import {
  type DynamoDbLocal,
  type DynamoDbLocalOptions,
  type ProcessExit,
  startDynamoDbLocal,
} from '#tools/local/dynamodb-local';

export interface SupervisorOptions {
  readonly dataDir: string;
  /** After a restart, before requests reach it (the tables and the key, should they be missing). */
  readonly onRestart: (endpoint: string) => Promise<unknown>;
  readonly onStart?: (pid: number | undefined) => void;
  readonly onGiveUp: (message: string) => void;
  readonly log: (line: string) => void;
  /** @default 3 */
  readonly maxRestarts?: number;
  /** @default 60_000 */
  readonly windowMs?: number;
  /** @default startDynamoDbLocal (another in tests: Java cannot crash three times a minute on demand) */
  readonly start?: (options: DynamoDbLocalOptions) => Promise<DynamoDbLocal>;
}

export type SupervisedDynamoDbLocal = Pick<DynamoDbLocal, 'endpoint' | 'pid' | 'stop'>;

const describeExit = ({ code, signal }: ProcessExit): string =>
  signal ? `ended by ${signal}` : `exited with code ${code}`;

/** Records a stop at `now` in `stops` (oldest first) and says how many fall within the last `windowMs`. */
const stopsWithin = (stops: number[], now: number, windowMs: number): number => {
  stops.push(now);
  while ((stops[0] ?? now) < now - windowMs) stops.shift();
  return stops.length;
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * DynamoDB Local kept running under `npm start`: a Java process that ends unasked (killed, crashed,
 * out of memory) is started again on the same port and data, each step logged. One that cannot be
 * started again, or ends more than 3 times a minute, is given up, for the server to exit saying why.
 */
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
      const stops = stopsWithin(restarts, Date.now(), windowMs);
      if (stops > maxRestarts) {
        options.onGiveUp(
          `DynamoDB Local ${describeExit(exit)}, its ${stops}th stop within ${windowMs / 1000} s: giving up. Its data is in ${options.dataDir}.`,
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
          `DynamoDB Local ${describeExit(exit)} and could not be started again: ${messageOf(error)}`,
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
