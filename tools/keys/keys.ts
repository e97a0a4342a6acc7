import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OUTPUT } from '#infra/outputs';
import { STAGE_NAMES, type StageName, stackName } from '#infra/stage-names';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { API_KEYS_TABLE } from '#shared/adapters/dynamodb/table-design';
import { type ApiKeyRecord, generateApiKey } from '#shared/auth/api-key';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/**
 * `npm run keys -- <command>`: creates, lists and revokes the API keys of a stage. A new key is
 * printed once and only its SHA-256 is stored; nothing here ever shows a stored hash.
 *
 *   npm run keys -- create <name> --table <ApiKeysTableName> [--stage <stage>] [--region <region>]
 *   npm run keys -- list --table <name>
 *   npm run keys -- revoke <keyId> --table <name>
 *   npm run keys -- list --endpoint http://127.0.0.1:8000 --table <name>   (DynamoDB Local)
 */

export const USAGE = `Usage:
  npm run keys -- create <name>  --table <table> [options]
  npm run keys -- list           --table <table> [options]
  npm run keys -- revoke <keyId> --table <table> [options]

Options:
  --table <name>      the stack output ${OUTPUT.tableName(API_KEYS_TABLE)} of the stage (required)
  --stage <stage>     ${STAGE_NAMES.join(' | ')}: refuses a table of another stage's stack
  --region <region>   AWS region of the table (default: AWS_REGION or your AWS profile)
  --endpoint <url>    a DynamoDB other than AWS's, e.g. DynamoDB Local of the local server
  -h, --help          this text

Find the table of a stage:
  aws cloudformation describe-stacks --stack-name PetStore-<stage> \\
    --query "Stacks[0].Outputs[?OutputKey=='${OUTPUT.tableName(API_KEYS_TABLE)}'].OutputValue" --output text`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Where the keys are: the table, and how to reach it. */
export interface KeysTarget {
  readonly table: string;
  readonly stage?: StageName;
  readonly region?: string;
  readonly endpoint?: string;
}

export type KeysCommand =
  | { readonly command: 'help' }
  | { readonly command: 'create'; readonly name: string; readonly target: KeysTarget }
  | { readonly command: 'list'; readonly target: KeysTarget }
  | { readonly command: 'revoke'; readonly keyId: string; readonly target: KeysTarget };

const isStage = (value: string): value is StageName => (STAGE_NAMES as readonly string[]).includes(value);

const targetOf = (values: {
  table?: string | undefined;
  stage?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
}): KeysTarget => {
  const { table, stage, region, endpoint } = values;
  if (stage !== undefined && !isStage(stage))
    throw new UsageError(`--stage must be one of ${STAGE_NAMES.join(', ')}, not "${stage}"`);
  if (!table) {
    throw new UsageError(
      stage
        ? `--table is required: the ${OUTPUT.tableName(API_KEYS_TABLE)} output of stack ${stackName(stage)}`
        : '--table is required',
    );
  }
  // CloudFormation names a table after its stack: a key meant for staging never lands in production.
  if (stage && !table.startsWith(`${stackName(stage)}-`))
    throw new UsageError(`Table "${table}" does not belong to stack ${stackName(stage)}`);
  if (endpoint !== undefined && !/^https?:\/\/\S+$/.test(endpoint))
    throw new UsageError(`--endpoint must be an http(s) URL, not "${endpoint}"`);
  return {
    table,
    ...(stage ? { stage } : {}),
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
  };
};

/** The command line as a command; throws UsageError with what is wrong. */
export const parseKeysArgs = (argv: readonly string[]): KeysCommand => {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  const [command, argument, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`Unexpected argument(s): ${extra.join(' ')}`);
  switch (command) {
    case 'create':
      if (!argument?.trim()) throw new UsageError('create needs a name for the key, e.g. create ci-bot');
      return { command, name: argument.trim(), target: targetOf(values) };
    case 'list':
      if (argument !== undefined) throw new UsageError(`list takes no argument, got "${argument}"`);
      return { command, target: targetOf(values) };
    case 'revoke':
      if (!argument)
        throw new UsageError('revoke needs the id of the key (see list), e.g. revoke key-1a2b3c');
      return { command, keyId: argument, target: targetOf(values) };
    case undefined:
      throw new UsageError('Missing command: create, list or revoke');
    default:
      throw new UsageError(`Unknown command "${command}": create, list or revoke`);
  }
};

const parse = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      table: { type: 'string' },
      stage: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });

export interface KeysIo {
  /** Results: the new key alone, or the list. */
  readonly out: (line: string) => void;
  /** Everything said about the results. */
  readonly err: (line: string) => void;
  readonly now?: () => Date;
}

const row = (record: ApiKeyRecord): string[] => [
  record.keyId,
  record.name,
  record.createdAt,
  record.revokedAt ?? '-',
];

const columns = (rows: readonly string[][]): string[] => {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((cells) => cells[column]?.length ?? 0))) ?? [];
  return rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
};

/** Runs a parsed command against a repository; resolves to the process exit code. */
export const runKeys = async (
  command: KeysCommand,
  apiKeys: ApiKeyRepository,
  io: KeysIo,
): Promise<number> => {
  const now = io.now ?? (() => new Date());
  switch (command.command) {
    case 'help':
      io.out(USAGE);
      return 0;
    case 'create': {
      const { key, record } = generateApiKey(command.name, now());
      await apiKeys.put(record);
      io.err(`Created ${record.keyId} ("${record.name}") in ${command.target.table}.`);
      io.err('The key is shown this once and stored only as its SHA-256; keep it secret:');
      io.out(key);
      return 0;
    }
    case 'list': {
      const records = await apiKeys.list();
      if (records.length === 0) {
        io.err(`No keys in ${command.target.table}.`);
        return 0;
      }
      for (const line of columns([['KEY ID', 'NAME', 'CREATED', 'REVOKED'], ...records.map(row)]))
        io.out(line);
      return 0;
    }
    case 'revoke': {
      if (!(await apiKeys.revoke(command.keyId, now().toISOString()))) {
        io.err(`No key ${command.keyId} in ${command.target.table}.`);
        return 1;
      }
      io.err(`Revoked ${command.keyId}; API Gateway may accept it until its cached decision expires.`);
      return 0;
    }
  }
};

/**
 * An operator's laptop may be far from the region (TLS set-up alone can take a second), so the
 * command allows more than the functions' 1 s per attempt; but a stalled network still ends it.
 */
export const OPERATOR_TIME_BUDGET = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 5_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
} as const;

/** What the command needs from this machine's AWS setup and does not find there. */
export class SetupError extends Error {
  override readonly name = 'SetupError';
}

/**
 * Resolves the client's region, then its credentials, as its first call would, and says which
 * setting is missing instead of the SDK's own error from deep inside that call.
 */
export const checkAwsSetup = async (client: DynamoDBClient): Promise<void> => {
  try {
    await client.config.region();
  } catch {
    throw new SetupError(
      'No AWS region: give --region <region> (the stack’s region), or set AWS_REGION, or AWS_PROFILE to a profile that names one.',
    );
  }
  try {
    await client.config.credentials();
  } catch {
    throw new SetupError(
      'No AWS credentials: set AWS_PROFILE to a signed-in profile (aws sso login --profile <name>), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    );
  }
};

export interface KeysRepository {
  readonly apiKeys: ApiKeyRepository;
  /** Fails with a SetupError naming the setting to give when AWS's region or credentials are missing. */
  readonly ready: () => Promise<void>;
  readonly close: () => void;
}

/** The repository of a target: AWS (default credentials) or another endpoint such as DynamoDB Local. */
export const repositoryFor = (target: KeysTarget): KeysRepository => {
  if (target.endpoint) {
    const client = createDocumentClient({ endpoint: target.endpoint });
    return {
      apiKeys: new DynamoDbApiKeyRepository({ client, apiKeysTable: target.table }),
      ready: async () => undefined,
      close: () => client.destroy(),
    };
  }
  const base = new DynamoDBClient({
    ...OPERATOR_TIME_BUDGET,
    ...(target.region ? { region: target.region } : {}),
  });
  const client = DynamoDBDocumentClient.from(base);
  return {
    apiKeys: new DynamoDbApiKeyRepository({ client, apiKeysTable: target.table }),
    ready: () => checkAwsSetup(base),
    close: () => client.destroy(),
  };
};

/** `npm run keys`: resolves to the exit code; every failure is one line on stderr, never a stack. */
export const main = async (
  argv: readonly string[],
  io: KeysIo = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> => {
  let command: KeysCommand;
  try {
    command = parseKeysArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.command === 'help') {
    io.out(USAGE);
    return 0;
  }
  const { apiKeys, ready, close } = repositoryFor(command.target);
  try {
    await ready();
    return await runKeys(command, apiKeys, io);
  } catch (error) {
    if (error instanceof SetupError) {
      io.err(error.message);
      return 2;
    }
    io.err(`Failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    return 1;
  } finally {
    close();
  }
};

const isEntryPoint = (): boolean => {
  const entry = process.argv[1];
  return entry !== undefined && realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
};

if (isEntryPoint()) {
  // The SDK's notice about this machine's Node.js version says nothing about the keys: keep the output to them.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.exitCode = await main(process.argv.slice(2));
}
