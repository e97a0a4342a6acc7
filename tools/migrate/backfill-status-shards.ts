import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OUTPUT } from '#infra/outputs';
import { STAGE_NAMES } from '#infra/stage-names';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { type BackfillProgress, backfillStatusShards } from '#shared/adapters/dynamodb/status-shard-backfill';
import { PETS_TABLE } from '#shared/adapters/dynamodb/table-design';
import {
  checkAwsSetup,
  OPERATOR_TIME_BUDGET,
  SetupError,
  TABLE_TARGET_OPTIONS,
  type TableTarget,
  tableTargetOf,
  UsageError,
} from '#tools/table-command';

/**
 * `npm run backfill:status-shards`: gives every pet of a stage's table the key of the sharded
 * status index (shared/adapters/dynamodb/status-shard-backfill.ts). Idempotent and resumable:
 * each page it finishes prints the `--after` to resume from.
 */

export const USAGE = `Usage:
  npm run backfill:status-shards -- --table <table> [options]

Options:
  --table <name>      the stack output ${OUTPUT.tableName(PETS_TABLE)} of the stage (required)
  --stage <stage>     ${STAGE_NAMES.join(' | ')}: refuses a table of another stage's stack
  --after <id>        resume after this pet id, as a previous run printed it
  --region <region>   AWS region of the table (default: AWS_REGION or your AWS profile)
  --endpoint <url>    a DynamoDB other than AWS's, e.g. DynamoDB Local
  -h, --help          this text

Running it again is safe: pets that already have their key are not written.`;

export interface BackfillTarget extends TableTarget {
  readonly after?: number;
}

export type BackfillCommand =
  | { readonly command: 'help' }
  | { readonly command: 'run'; readonly target: BackfillTarget };

/** The command line as a command; throws UsageError with what is wrong. */
export const parseBackfillArgs = (argv: readonly string[]): BackfillCommand => {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { command: 'help' };
  const { after } = values;
  const target = tableTargetOf(values, OUTPUT.tableName(PETS_TABLE));
  if (after !== undefined && !/^[1-9]\d{0,15}$/.test(after))
    throw new UsageError(`--after must be a pet id as a previous run printed it, not "${after}"`);
  return { command: 'run', target: { ...target, ...(after ? { after: Number(after) } : {}) } };
};

const parse = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    allowPositionals: false,
    strict: true,
    options: {
      ...TABLE_TARGET_OPTIONS,
      after: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });

export interface BackfillIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const progressLine = (progress: BackfillProgress): string =>
  `${progress.scanned} pets read: ${progress.updated} given their key, ${progress.alreadyDone} had it` +
  (progress.changedMeanwhile > 0 ? `, ${progress.changedMeanwhile} changed meanwhile (run again)` : '');

/** The client of a target: AWS (default credentials) or another endpoint such as DynamoDB Local. */
const clientFor = (target: BackfillTarget) => {
  if (target.endpoint) {
    const client = createDocumentClient({ endpoint: target.endpoint });
    return { client, ready: async () => undefined };
  }
  const base = new DynamoDBClient({
    ...OPERATOR_TIME_BUDGET,
    ...(target.region ? { region: target.region } : {}),
  });
  return { client: DynamoDBDocumentClient.from(base), ready: () => checkAwsSetup(base) };
};

/** `npm run backfill:status-shards`: resolves to the exit code; every failure is one line on stderr. */
export const main = async (
  argv: readonly string[],
  io: BackfillIo = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> => {
  let command: BackfillCommand;
  try {
    command = parseBackfillArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.command === 'help') {
    io.out(USAGE);
    return 0;
  }
  const { target } = command;
  const { client, ready } = clientFor(target);
  let resumeAfter = target.after;
  try {
    await ready();
    const done = await backfillStatusShards({
      client,
      petsTable: target.table,
      ...(target.after ? { after: target.after } : {}),
      onPage: (progress) => {
        resumeAfter = progress.after;
        if (progress.after !== undefined)
          io.err(`${progressLine(progress)}; to resume: --after ${progress.after}`);
      },
    });
    io.out(`Done: ${progressLine(done)}.`);
    return done.changedMeanwhile > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof SetupError) {
      io.err(error.message);
      return 2;
    }
    const resume = resumeAfter === undefined ? '' : ` Resume with --after ${resumeAfter}.`;
    io.err(`Failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}.${resume}`);
    return 1;
  } finally {
    client.destroy();
  }
};

const isEntryPoint = (): boolean => {
  const entry = process.argv[1];
  return entry !== undefined && realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
};

if (isEntryPoint()) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.exitCode = await main(process.argv.slice(2));
}
