import { parseArgs } from 'node:util';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OUTPUT } from '#infra/outputs';
import {
  type AnyStageName,
  DEV_STAGE_PREFIX,
  isDevStageName,
  isPipelineStage,
  STAGE_NAMES,
  stackName,
} from '#infra/stage-names';
import { DEV_PLANS, LOCAL_PLANS, plansOf, STAGE_PLANS } from '#infra/stage-plans';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { API_KEYS_TABLE } from '#shared/adapters/dynamodb/table-design';
import { type ApiKeyRecord, heldScopes } from '#shared/auth/api-key';
import { ALL_SCOPES, inScopeOrder, isScope, SCOPES, type Scope, scopeList } from '#shared/auth/scopes';
import { ENV, type Env } from '#shared/config';
import { type Plans, planNames } from '#shared/fair-use/plans';
import {
  AwsSetupError,
  awsUserError,
  CONSOLE,
  type CommandIo,
  checkAwsSetup,
  describe,
  isEntry,
  runCommand,
  USER_ERROR_EXIT,
  UsageError,
  UserError,
  unreachableCode,
  wantsHelp,
} from '#tools/command';
import { ApiGatewayRegistry, UsagePlanNotFoundError } from '#tools/keys/api-gateway-registry';
import { IncompleteChangeError, KeyAdmin, type KeysStores, UnknownPlanError } from '#tools/keys/key-admin';
import { dataDirHolder } from '#tools/local/data-dir-lock';
import { localDataDir } from '#tools/local/settings';

/** `npm run keys -- <command>` (USAGE): a stage's API keys; a new key printed once, its SHA-256 stored. */

export const USAGE = `Usage:
  npm run keys -- create <name> [--plan <plan>] [--scope <scope>]... --table <table> [options]
  npm run keys -- list                          --table <table> [options]
  npm run keys -- revoke <keyId>                --table <table> [options]
  npm run keys -- move <keyId> --plan <plan>    --table <table> [options]
  (or --local instead of --table: the keys of npm start's server)

Options:
  --table <name>      the stack output ${OUTPUT.tableName(API_KEYS_TABLE)} of the stage (required, unless --local)
  --local             the keys of the server npm start runs on $PETSTORE_DATA_DIR (./.data), found from its lock
  --scope <scope>     what the new key may do, once per scope: ${ALL_SCOPES.map((scope) => `${scope} (${SCOPES[scope]})`).join(', ')};
                      without it, every scope
  --json              create's key, or list's records, as JSON on stdout (list never shows a key)
  --plan <plan>       a plan of the stage (staging: ${planNames(STAGE_PLANS.staging).join(', ')}; production: ${planNames(STAGE_PLANS.production).join(', ')};
                      ${DEV_STAGE_PREFIX}<name>: ${planNames(DEV_PLANS).join(', ')});
                      create's default is the stage's default plan
  --stage <stage>     ${STAGE_NAMES.join(' | ')} | ${DEV_STAGE_PREFIX}<name>: refuses a table of another stage's stack (in AWS,
                      read from the table's name when not given)
  --region <region>   AWS region of the table (default: AWS_REGION or your AWS profile)
  --endpoint <url>    a DynamoDB other than AWS's, e.g. DynamoDB Local of the local server
  -h, --help          this text

Find the table of a stage:
  aws cloudformation describe-stacks --stack-name PetStore-<stage> \\
    --query "Stacks[0].Outputs[?OutputKey=='${OUTPUT.tableName(API_KEYS_TABLE)}'].OutputValue" --output text`;

export { UsageError };

/** A scope the service does not have: said in one sentence that names those it has. */
export class UnknownScopeError extends UserError {
  override readonly name = 'UnknownScopeError';
  constructor(scope: string) {
    super(`"${scope}" is not a scope: the scopes are ${ALL_SCOPES.join(', ')}.`);
  }
}

/** `--local` found no server to take the keys of: said in one sentence, with what to do. */
export class LocalServerError extends UserError {
  override readonly name = 'LocalServerError';
}

export interface KeysTarget {
  readonly table: string;
  readonly stage?: AnyStageName;
  readonly region?: string;
  readonly endpoint?: string;
  /** Found from npm start's lock (`--local`), which is how the command says to run again. */
  readonly local?: true;
}

/** `--local`: the table and DynamoDB Local of npm start's server, found when the command runs. */
export const LOCAL_TARGET = { local: true } as const;

export type Target = KeysTarget | typeof LOCAL_TARGET;

export type KeysCommand =
  | { readonly command: 'help' }
  | {
      readonly command: 'create';
      readonly name: string;
      readonly plan?: string;
      readonly scopes?: readonly Scope[];
      readonly json?: true;
      readonly target: Target;
    }
  | { readonly command: 'list'; readonly json?: true; readonly target: Target }
  | { readonly command: 'revoke'; readonly keyId: string; readonly target: Target }
  | { readonly command: 'move'; readonly keyId: string; readonly plan: string; readonly target: Target };

const isStage = (value: string): value is AnyStageName => isPipelineStage(value) || isDevStageName(value);

const targetOf = (
  values: Partial<Record<Exclude<keyof KeysTarget, 'local'>, string>> & { local?: boolean },
): Target => {
  const { table, stage, region, endpoint } = values;
  if (values.local) {
    const given = Object.entries({ table, stage, region, endpoint }).filter(
      ([, value]) => value !== undefined,
    );
    if (given.length > 0)
      throw new UsageError(
        `--local finds the table and DynamoDB of npm start itself: give it without ${given.map(([name]) => `--${name}`).join(', ')}`,
      );
    return LOCAL_TARGET;
  }
  if (stage !== undefined && !isStage(stage))
    throw new UsageError(
      `--stage must be one of ${STAGE_NAMES.join(', ')} or ${DEV_STAGE_PREFIX}<name>, not "${stage}"`,
    );
  if (!table) {
    throw new UsageError(
      stage
        ? `--table is required: the ${OUTPUT.tableName(API_KEYS_TABLE)} output of stack ${stackName(stage)}`
        : '--table is required',
    );
  }
  // CloudFormation names a table after its stack: a command meant for staging never touches production.
  if (stage && !table.startsWith(`${stackName(stage)}-`))
    throw new UsageError(`Table "${table}" does not belong to stack ${stackName(stage)}`);
  if (endpoint !== undefined && !/^https?:\/\/\S+$/.test(endpoint))
    throw new UsageError(`--endpoint must be an http(s) URL, not "${endpoint}"`);
  return { table, stage, region, endpoint };
};

const parse = (argv: readonly string[]) => {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        table: { type: 'string' },
        stage: { type: 'string' },
        region: { type: 'string' },
        endpoint: { type: 'string' },
        plan: { type: 'string' },
        scope: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        local: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
};

export const parseKeysArgs = (argv: readonly string[]): KeysCommand => {
  const { values, positionals } = parse(argv);
  if (values.help) return { command: 'help' };
  const [command, argument, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`Unexpected argument(s): ${extra.join(' ')}`);
  const { plan, scope, json } = values;
  if (plan !== undefined && command !== 'create' && command !== 'move')
    throw new UsageError(`--plan goes with create or move, not ${command ?? 'no command'}`);
  if (scope !== undefined && command !== 'create')
    throw new UsageError(`--scope goes with create, not ${command ?? 'no command'}`);
  if (json && command !== 'create' && command !== 'list')
    throw new UsageError(`--json goes with create or list, not ${command ?? 'no command'}`);
  const asJson = json ? { json: true as const } : {};
  switch (command) {
    case 'create': {
      if (!argument?.trim()) throw new UsageError('create needs a name for the key, e.g. create ci-bot');
      const unknown = scope?.find((name) => !isScope(name));
      if (unknown !== undefined) throw new UnknownScopeError(unknown);
      return {
        command,
        name: argument.trim(),
        ...(plan ? { plan } : {}),
        ...(scope ? { scopes: inScopeOrder(scope.filter(isScope)) } : {}),
        ...asJson,
        target: targetOf(values),
      };
    }
    case 'list':
      if (argument !== undefined) throw new UsageError(`list takes no argument, got "${argument}"`);
      return { command, ...asJson, target: targetOf(values) };
    case 'revoke':
      if (!argument)
        throw new UsageError('revoke needs the id of the key (see list), e.g. revoke key-1a2b3c');
      return { command, keyId: argument, target: targetOf(values) };
    case 'move':
      if (!argument)
        throw new UsageError('move needs the id of the key (see list), e.g. move key-1a2b3c --plan partner');
      if (!plan) throw new UsageError(`move needs the plan to put ${argument} on: --plan <plan>`);
      return { command, keyId: argument, plan, target: targetOf(values) };
    case undefined:
      throw new UsageError('Missing command: create, list, revoke or move');
    default:
      throw new UsageError(`Unknown command "${command}": create, list, revoke or move`);
  }
};

/** `out` takes the results: the new key alone, or the list. */
export interface KeysIo extends CommandIo {
  readonly now?: () => Date;
  /** Where `--local` reads PETSTORE_DATA_DIR. @default process.env */
  readonly env?: Env;
}

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

export const rerunCommand =
  ({ table, stage, region, endpoint, local }: KeysTarget) =>
  (args: string): string => {
    if (local) return `npm run -s keys -- ${args} --local`;
    const given = Object.entries({ table, stage, region, endpoint }).filter(([, value]) => value);
    return [`npm run -s keys -- ${args}`, ...given.map(([name, value]) => `--${name} ${value}`)].join(' ');
  };

/** A record as `list --json` shows it: its scopes as held, never the key, its hash or its usage identifier's value. */
const listed = (record: ApiKeyRecord, plans: Plans) => ({
  keyId: record.keyId,
  name: record.name,
  plan: record.plan ?? plans.defaultPlan,
  scopes: heldScopes(record),
  createdAt: record.createdAt,
  ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
  ...(record.usage ? { usageId: record.usage.id } : {}),
});

/** The table and DynamoDB Local of the server npm start runs on PETSTORE_DATA_DIR, from its lock. */
export const localKeysTarget = (env: Env): KeysTarget => {
  const dataDir = localDataDir(env);
  const holder = dataDirHolder(dataDir);
  if (!holder)
    throw new LocalServerError(
      `No npm start runs on ${dataDir} (${ENV.local.dataDir}): start it, or give --endpoint and --table.`,
    );
  if (!holder.dynamoDb)
    throw new LocalServerError(
      `The ${holder.server} on ${dataDir} (PID ${holder.pid}) has not said where its DynamoDB Local is: wait until it serves, or restart it.`,
    );
  return { table: holder.dynamoDb.apiKeysTable, endpoint: holder.dynamoDb.endpoint, local: true };
};

/** The keys a command names: `--table` and its options as given, or `--local`'s, found now. */
export const resolveTarget = (target: Target, env: Env = process.env): KeysTarget =>
  'table' in target ? target : localKeysTarget(env);

export const runKeys = async (
  command: Exclude<KeysCommand, { command: 'help' }> & { readonly target: KeysTarget },
  stores: KeysStores,
  io: KeysIo,
): Promise<number> => {
  const admin = new KeyAdmin({
    ...stores,
    rerun: rerunCommand(command.target),
    ...(io.now ? { now: io.now } : {}),
  });
  const { table } = command.target;
  switch (command.command) {
    case 'create': {
      const { key, record } = await admin.create(command.name, command.plan, command.scopes);
      const scopes = heldScopes(record);
      io.err(
        `Created ${record.keyId} ("${record.name}") on plan ${record.plan}, with ${scopeList(scopes)}, in ${table}.`,
      );
      if (record.usage) io.err(`Metered in ${stores.registry?.name} by usage identifier ${record.usage.id}.`);
      io.err('The key is shown this once and stored only as its SHA-256; keep it secret:');
      io.out(command.json ? JSON.stringify({ keyId: record.keyId, key, scopes, plan: record.plan }) : key);
      return 0;
    }
    case 'list': {
      const records = await stores.apiKeys.list();
      if (command.json) {
        io.out(JSON.stringify(records.map((record) => listed(record, stores.plans))));
        return 0;
      }
      if (records.length === 0) {
        io.err(`No keys in ${table}.`);
        return 0;
      }
      const row = (record: ApiKeyRecord): string[] => [
        record.keyId,
        record.name,
        record.plan ?? `${stores.plans.defaultPlan}(default)`,
        // A record made before scopes holds every scope, and any added later.
        record.scopes ? scopeList(heldScopes(record)) : `${scopeList(ALL_SCOPES)}(all)`,
        record.createdAt,
        record.revokedAt ?? '-',
        record.usage?.id ?? '-',
      ];
      for (const line of columns([
        ['KEY ID', 'NAME', 'PLAN', 'SCOPES', 'CREATED', 'REVOKED', 'USAGE ID'],
        ...records.map(row),
      ]))
        io.out(line);
      return 0;
    }
    case 'revoke': {
      const revoked = await admin.revoke(command.keyId);
      if (!revoked.done) {
        io.err(`${revoked.reason} in ${table}.`);
        return 1;
      }
      io.err(
        stores.registry
          ? `Revoked ${command.keyId} and deleted its usage identifier: API Gateway refuses it now, even a decision it had cached.`
          : // Locally (--endpoint): no API Gateway, and the local gateway asks the authorizer every time.
            `Revoked ${command.keyId}; the local server refuses it from its next request.`,
      );
      return 0;
    }
    case 'move': {
      const moved = await admin.move(command.keyId, command.plan);
      if (!moved.done) {
        io.err(`${moved.reason} in ${table}.`);
        return 1;
      }
      io.err(
        stores.registry
          ? `${command.keyId} is on plan ${command.plan}; answers name it in RateLimit-Policy once the authorizer's cached decision expires.`
          : `${command.keyId} is on plan ${command.plan} from its next request.`,
      );
      return 0;
    }
  }
};

export interface KeysRepository extends KeysStores {
  /** Fails with an AwsSetupError naming the setting to give when AWS's region or credentials are missing. */
  readonly ready: () => Promise<void>;
  readonly close: () => void;
}

/** An operator's laptop may be far from the region: more than the functions' 1 s per attempt, but bounded. */
const OPERATOR_TIME_BUDGET = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 5_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
} as const;

/** A developer stack's table: `PetStore-dev-<name>-<logical id>-<suffix>` (a dev name holds no hyphen). */
const DEV_TABLE = new RegExp(`^${stackName(`${DEV_STAGE_PREFIX}`)}([a-z][a-z0-9]*)-`);

export const stageOf = (target: KeysTarget): AnyStageName => {
  const devName = DEV_TABLE.exec(target.table)?.[1];
  const stage =
    target.stage ??
    STAGE_NAMES.find((name) => target.table.startsWith(`${stackName(name)}-`)) ??
    (devName ? (`${DEV_STAGE_PREFIX}${devName}` as const) : undefined);
  if (!stage)
    throw new UsageError(
      `--stage is required: the table "${target.table}" is not named after a stage's stack, and the stage says which plans and usage plans the keys have`,
    );
  return stage;
};

/** In AWS, the table and the stage's usage plans; at another endpoint (DynamoDB Local), the table alone. */
export const repositoryFor = (target: KeysTarget): KeysRepository => {
  if (target.endpoint) {
    const client = createDocumentClient({ endpoint: target.endpoint });
    return {
      apiKeys: new DynamoDbApiKeyRepository({ client, apiKeysTable: target.table }),
      registry: undefined,
      plans: LOCAL_PLANS,
      ready: async () => undefined,
      close: () => client.destroy(),
    };
  }
  const stage = stageOf(target);
  const region = target.region ? { region: target.region } : {};
  const base = new DynamoDBClient({ ...OPERATOR_TIME_BUDGET, ...region });
  const client = DynamoDBDocumentClient.from(base);
  const apiGateway = new APIGatewayClient({ ...OPERATOR_TIME_BUDGET, ...region });
  return {
    apiKeys: new DynamoDbApiKeyRepository({ client, apiKeysTable: target.table }),
    registry: new ApiGatewayRegistry({ client: apiGateway, stackName: stackName(stage), ...region }),
    plans: plansOf(stage),
    ready: () => checkAwsSetup(base),
    close: () => {
      client.destroy();
      apiGateway.destroy();
    },
  };
};

/** `npm run keys`: resolves to the exit code; every failure is one line on stderr, never a stack. */
export const main = async (
  argv: readonly string[],
  io: KeysIo = CONSOLE,
  /** Where a target's keys are. @default repositoryFor (AWS, or the endpoint given) */
  open: (target: KeysTarget) => KeysRepository = repositoryFor,
): Promise<number> => {
  let command: Exclude<KeysCommand, { command: 'help' }> & { readonly target: KeysTarget };
  let repository: KeysRepository;
  if (wantsHelp(argv)) {
    io.out(USAGE);
    return 0;
  }
  try {
    const parsed = parseKeysArgs(argv);
    if (parsed.command === 'help') {
      io.out(USAGE);
      return 0;
    }
    command = { ...parsed, target: resolveTarget(parsed.target, io.env) };
    repository = open(command.target);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    io.err(
      error instanceof UsageError
        ? `${error.message} (npm run keys -- --help shows the usage)`
        : error.message,
    );
    return USER_ERROR_EXIT;
  }
  try {
    await repository.ready();
    return await runKeys(command, repository, io);
  } catch (error) {
    const userError = keysUserError(error, command.target);
    if (userError || error instanceof UnknownPlanError) {
      io.err((userError ?? (error as Error)).message);
      return USER_ERROR_EXIT;
    }
    if (error instanceof IncompleteChangeError || error instanceof UsagePlanNotFoundError) {
      io.err(error.message);
      for (const line of error instanceof IncompleteChangeError ? error.commands : []) io.err(`  ${line}`);
      return 1;
    }
    io.err(`Failed: ${describe(error)}`);
    io.err(
      'What it had done before the failure was undone; once the cause is fixed, run the same command again.',
    );
    return 1;
  } finally {
    repository.close();
  }
};

/** What a user can fix, from the shared list (tools/command.ts), and a table this region does not hold. */
const keysUserError = (
  error: unknown,
  { table, region, endpoint, local }: KeysTarget,
): UserError | undefined => {
  if (error instanceof AwsSetupError) return error;
  // npm start's DynamoDB Local, found from its lock, that no longer answers: the server stopped or died.
  const unreachable = local ? unreachableCode(error) : undefined;
  if (unreachable)
    return new UserError(
      `npm start's DynamoDB Local at ${endpoint} does not answer (${unreachable}): start npm start again, then run the same command.`,
    );
  // DynamoDB's answer for a table it does not know, in this account and region.
  if (error instanceof Error && error.name === 'ResourceNotFoundException')
    return new UserError(
      `No table ${table} in ${region ?? 'this account and region'}: give the stack's ${OUTPUT.tableName(API_KEYS_TABLE)} output as --table, and its region as --region (or AWS_REGION).`,
    );
  return awsUserError(error, { doing: `using table ${table}`, ...(region ? { region } : {}) });
};

if (isEntry(import.meta.url)) await runCommand((argv) => main(argv));
