import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetAccountCommand,
} from '@aws-sdk/client-api-gateway';
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import {
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPERATIONS } from '#functions/operations';
import { OUTPUT } from '#infra/outputs';
import { pascal } from '#infra/pet-store-stack';
import { PROJECT_ROOT } from '#infra/project-root';
import { DEV_PLANS } from '#infra/stage-plans';
import { ALL_TABLES } from '#shared/adapters/dynamodb/table-design';
import type { CommandIo } from '#tools/command';
import { main as deploy } from '#tools/deploy/deploy';
import { main as outputs } from '#tools/deploy/outputs';
import { main as keys } from '#tools/keys/keys';
import { type LocalPetEvents, startLocalPetEvents } from '#tools/local/pet-events';
import { main as smoke } from '#tools/smoke/smoke';
import { main as verify } from '#tools/verify/verify';
import { answerAsDeployed, DEV_STACK } from '../support/deployed-stage';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { apiKeysOf } from '../support/tables';

/**
 * docs/deploy.md's "First deployment: a stack of your own", its commands run as written with bash.
 * Each `npm run` is the command itself (its `main`), run in this process, with its AWS clients
 * answered in the SDK's own shapes by aws-sdk-client-mock: an account that `npx cdk bootstrap`
 * bootstraps, with API Gateway's CloudWatch Logs role; the stack, once `cdk deploy` (stood in for)
 * has run, with its outputs; API Gateway's usage plans and keys; the stage's settings and access
 * log for verify. The keys table is in DynamoDB Local, and the local server `npm start` runs stands
 * in for the stage's URL, its events published by the publisher on DynamoDB Local's stream, as
 * `npm start` publishes them: what reaches verify's queue is what the rule it made matches of them.
 * `npm ci` is what CI has done before this runs.
 */

const SECTION = '## First deployment: a stack of your own';
const deployMd = readFileSync(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
const section = deployMd.slice(deployMd.indexOf(`\n${SECTION}\n`));
const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);
const logs = mockClient(CloudWatchLogsClient);
const eventBridge = mockClient(EventBridgeClient);
const sqs = mockClient(SQSClient);

/** What the rehearsal's account holds, as the commands change it. */
const account = {
  bootstrapped: false,
  deployed: false,
  /** API Gateway API keys: the usage identifiers npm run keys makes, by id. */
  apiKeys: new Map<string, string>(),
  usagePlanKeys: new Set<string>(),
  /** Rules on the stage's bus, by name, with their event patterns. */
  rules: new Map<string, { detailTypes: string[]; petNames: string[] }>(),
  /** Queues, by URL: what a rule sent to each, and whether a rule has one as its target. */
  queues: new Map<string, { messages: string[]; targeted: boolean }>(),
};
/** Each command run, in order, with its exit code. */
const ran: string[] = [];
const cdkRuns: (readonly string[])[] = [];

const notFound = (name: string) =>
  new CloudFormationServiceException({
    name: 'ValidationError',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: `Stack with id ${name} does not exist`,
  });

const EVENT_BUS = `${DEV_STACK}-EventsBus-1`;

let api: LocalApi;
let events: LocalPetEvents | undefined;
let eventTarget: Server | undefined;
let dispatcher: Server;
const work = mkdtempSync(join(tmpdir(), 'petstore-first-deployment-'));

/** The deployed stack's outputs, as the lean stack names them, its URL and tables the local server's. */
const stackOutputs = (): Stack['Outputs'] => [
  { OutputKey: OUTPUT.apiUrl, OutputValue: `${api.gateway.baseUrl}/` },
  ...ALL_TABLES.map((design) => ({
    OutputKey: OUTPUT.tableName(design),
    OutputValue: api.tables.names[design.key],
  })),
  { OutputKey: OUTPUT.accessLogs, OutputValue: `${DEV_STACK}-ApiAccessLogs-1` },
  { OutputKey: OUTPUT.eventBus, OutputValue: EVENT_BUS },
  ...[...OPERATIONS.map(({ name }) => pascal(name)), 'Authorizer'].map((name) => ({
    OutputKey: OUTPUT.functionLogs(name),
    OutputValue: `${DEV_STACK}-${name}Logs-1`,
  })),
];

const answerAsTheAccount = () => {
  cloudFormation.on(DescribeStacksCommand).callsFake(async ({ StackName }: { StackName?: string }) => {
    if (StackName === 'CDKToolkit' && account.bootstrapped)
      return { Stacks: [{ StackName, StackStatus: 'CREATE_COMPLETE', CreationTime: new Date() }] };
    if (StackName === DEV_STACK && account.deployed)
      return {
        Stacks: [
          { StackName, StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(), Outputs: stackOutputs() },
        ],
      };
    throw notFound(StackName ?? '');
  });
  answerAsDeployed({ cloudFormation, apiGateway, logs });
  apiGateway.on(GetAccountCommand).resolves({
    cloudwatchRoleArn: 'arn:aws:iam::111122223333:role/apigateway-cloudwatch-logs',
  });
  apiGateway.on(CreateApiKeyCommand).callsFake(async ({ name }: { name?: string }) => {
    const id = `apikey${account.apiKeys.size + 1}`;
    account.apiKeys.set(id, name ?? '');
    return { id, name, enabled: true };
  });
  apiGateway.on(CreateUsagePlanKeyCommand).callsFake(async ({ usagePlanId, keyId }) => {
    account.usagePlanKeys.add(`${usagePlanId}/${keyId}`);
    return { id: keyId, type: 'API_KEY' };
  });
  apiGateway.on(DeleteUsagePlanKeyCommand).callsFake(async ({ usagePlanId, keyId }) => {
    account.usagePlanKeys.delete(`${usagePlanId}/${keyId}`);
    return {};
  });
  apiGateway.on(DeleteApiKeyCommand).callsFake(async ({ apiKey }: { apiKey?: string }) => {
    account.apiKeys.delete(apiKey ?? '');
    for (const key of account.usagePlanKeys)
      if (key.endsWith(`/${apiKey}`)) account.usagePlanKeys.delete(key);
    return {};
  });
};

/**
 * EventBridge and SQS for verify's events check: a rule matches what the pattern it was made with
 * names (`detail-type` and the pet's name), and sends it to the queue it targets.
 */
const answerAsTheBus = () => {
  eventBridge.on(PutRuleCommand).callsFake(async ({ Name, EventPattern }) => {
    const pattern = JSON.parse(EventPattern ?? '{}');
    account.rules.set(Name ?? '', {
      detailTypes: pattern['detail-type'] ?? [],
      petNames: pattern.detail?.pet?.name ?? [],
    });
    return { RuleArn: `arn:aws:events:eu-west-1:111122223333:rule/${EVENT_BUS}/${Name}` };
  });
  eventBridge.on(PutTargetsCommand).callsFake(async ({ Targets = [] }) => {
    for (const { Arn } of Targets) {
      const queue = account.queues.get(queueUrlOf(Arn ?? ''));
      if (queue) queue.targeted = true;
    }
    return { FailedEntryCount: 0, FailedEntries: [] };
  });
  eventBridge.on(RemoveTargetsCommand).resolves({ FailedEntryCount: 0, FailedEntries: [] });
  eventBridge.on(DeleteRuleCommand).callsFake(async ({ Name }) => {
    account.rules.delete(Name ?? '');
    return {};
  });
  sqs.on(CreateQueueCommand).callsFake(async ({ QueueName }) => {
    const url = `https://sqs.eu-west-1.amazonaws.com/111122223333/${QueueName}`;
    account.queues.set(url, { messages: [], targeted: false });
    return { QueueUrl: url };
  });
  sqs.on(GetQueueAttributesCommand).callsFake(async ({ QueueUrl }) => ({
    Attributes: { QueueArn: `arn:aws:sqs:eu-west-1:111122223333:${QueueUrl?.split('/').at(-1)}` },
  }));
  sqs.on(SetQueueAttributesCommand).resolves({});
  sqs.on(ReceiveMessageCommand).callsFake(async ({ QueueUrl }) => {
    const queue = account.queues.get(QueueUrl ?? '');
    if (!queue?.messages.length) await new Promise((waited) => setTimeout(waited, 100));
    const messages = queue?.messages.splice(0) ?? [];
    return { Messages: messages.map((Body, index) => ({ MessageId: `m-${index}`, Body })) };
  });
  sqs.on(DeleteQueueCommand).callsFake(async ({ QueueUrl }) => {
    account.queues.delete(QueueUrl ?? '');
    return {};
  });
};

const queueUrlOf = (arn: string): string => {
  const [, , , region, accountId, name] = arn.split(':');
  return `https://sqs.${region}.amazonaws.com/${accountId}/${name}`;
};

/** The bus: each event the stage publishes, to the queues of the rules that match it. */
const deliver = (body: string) => {
  const event = JSON.parse(body) as { 'detail-type'?: string; detail?: { pet?: { name?: string } } };
  for (const rule of account.rules.values()) {
    if (!rule.detailTypes.includes(event['detail-type'] ?? '')) continue;
    if (!rule.petNames.includes(event.detail?.pet?.name ?? '')) continue;
    for (const queue of account.queues.values()) if (queue.targeted) queue.messages.push(body);
  }
};

/** The stage's events, published from DynamoDB Local's stream of its pets table to the bus above. */
const startEvents = async () => {
  eventTarget = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      deliver(body);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((listening) => eventTarget?.listen(0, '127.0.0.1', listening));
  events = await startLocalPetEvents({
    endpoint: api.tables.endpoint,
    petsTable: api.tables.names.pets,
    dataDir: work,
    targets: [`http://127.0.0.1:${(eventTarget.address() as AddressInfo).port}/events`],
    logLevel: 'SILENT',
    log: () => undefined,
  });
};

/** cdk, stood in for: a deploy creates the stack, a destroy deletes it. */
const cdk = async (args: readonly string[]): Promise<number> => {
  cdkRuns.push(args);
  account.deployed = args[0] === 'deploy';
  return 0;
};

/** `npm run [-s] <script> [-- args]`, `npm ci` and `npx cdk bootstrap`, as the section runs them. */
const runCommand = async (argv: readonly string[], io: CommandIo): Promise<number> => {
  const [tool, first, ...rest] = argv;
  if (tool === 'npm' && first === 'ci') return 0;
  if (tool === 'npx' && first === 'cdk' && rest[0] === 'bootstrap') {
    account.bootstrapped = true;
    return 0;
  }
  if (tool !== 'npm' || first !== 'run')
    throw new Error(`The section runs ${argv.join(' ')}, which this does not know`);
  const [script = '', ...after] = rest[0] === '-s' ? rest.slice(1) : rest;
  const args = after[0] === '--' ? after.slice(1) : after;
  switch (script) {
    case 'deploy':
    case 'destroy':
      return deploy(script, args, { io, cdk, cdkContext: {} });
    case 'outputs':
      return outputs(args, io);
    case 'keys':
      return keys(args, io);
    case 'smoke':
      return smoke(args, {}, io);
    case 'verify':
      // No wait for a new rule to take effect: this bus's rules do at once.
      return verify(args, io, undefined, 0);
    default:
      throw new Error(`The section runs npm run ${script}, which this does not know`);
  }
};

/** Each call of the shell's `npm` and `npx`: arguments in, NUL-separated; exit code out, the output in files. */
const startDispatcher = (): Promise<number> => {
  dispatcher = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', async () => {
      const argv = body.split('\0').slice(0, -1);
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
      let code: number;
      try {
        code = await runCommand(argv, io);
      } catch (error) {
        err.push(`rehearsal: ${(error as Error).stack}`);
        code = 99;
      }
      ran.push(`${argv.join(' ')} → ${code}`);
      writeFileSync(join(work, 'out'), out.map((line) => `${line}\n`).join(''));
      writeFileSync(join(work, 'err'), err.map((line) => `${line}\n`).join(''));
      response.end(String(code));
    });
  });
  return new Promise((resolve) =>
    dispatcher.listen(0, '127.0.0.1', () => resolve((dispatcher.address() as AddressInfo).port)),
  );
};

/** The shell's `npm` and `npx`: this process runs each, and gives back its output and exit code. */
const prelude = (port: number) => `
rehearse() {
  local code
  code=$(printf '%s\\0' "$@" | curl -sS --fail --data-binary @- "http://127.0.0.1:${port}/run")
  cat '${work}/err' >&2
  cat '${work}/out'
  return "$code"
}
npm() { rehearse npm "$@"; }
npx() { rehearse npx "$@"; }
`;

beforeAll(async () => {
  api = await startLocalApi(DEV_STACK, { plans: DEV_PLANS, corsOrigins: ['http://localhost:5173'] });
  for (const [name, value] of Object.entries({
    AWS_REGION: 'eu-west-1',
    AWS_PROFILE: '',
    AWS_CONFIG_FILE: '/nonexistent/aws/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws/credentials',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    // The keys table is the local server's, in DynamoDB Local: the SDK's endpoint for DynamoDB alone.
    AWS_ENDPOINT_URL_DYNAMODB: api.tables.endpoint,
  }))
    vi.stubEnv(name, value);
  answerAsTheAccount();
  answerAsTheBus();
  await startEvents();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  for (const mock of [cloudFormation, apiGateway, logs, eventBridge, sqs]) mock.restore();
  await events?.stop();
  eventTarget?.close();
  dispatcher?.close();
  await api?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("docs/deploy.md's first deployment", () => {
  it('runs as written: deploy after the checks, keys, smoke against the stage, verify, keys revoked, destroy', async () => {
    expect(block).toContain('npm run deploy');
    const port = await startDispatcher();

    const shell = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', `${prelude(port)}\n${block}`], { cwd: work });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

    expect({ code: shell.code, stderr: shell.stderr.includes('rehearsal:') ? shell.stderr : '' }).toEqual({
      code: 0,
      stderr: '',
    });
    // Every command of the section ran, in its order, and each succeeded.
    expect(ran.map((line) => line.replace(/ --(url|key|throttle-key|table) \S+/g, ' --$1 …'))).toEqual([
      'npm ci → 0',
      'npx cdk bootstrap → 0',
      'npm run deploy -- --stage dev-ann → 0',
      'npm run -s outputs -- --stage dev-ann ApiKeysTableName → 0',
      'npm run -s keys -- create smoke --plan smoke --stage dev-ann --table … → 0',
      'npm run -s keys -- create smoke-throttle --plan trial --stage dev-ann --table … → 0',
      'npm run -s outputs -- --stage dev-ann ApiUrl → 0',
      'npm run smoke -- --url … --key … --origin http://localhost:5173 --throttle-key … → 0',
      'npm run verify -- --stage dev-ann --key … → 0',
      'npm run -s keys -- list --stage dev-ann --table … → 0',
      ...['revoke', 'revoke', 'revoke'].map((command) =>
        expect.stringMatching(
          new RegExp(`^npm run -s keys -- ${command} key-\\w+ --stage dev-ann --table … → 0$`),
        ),
      ),
      'npm run destroy -- --stage dev-ann → 0',
    ]);
    expect(cdkRuns).toEqual([
      ['deploy', DEV_STACK, '-c', 'stage=dev-ann'],
      ['destroy', DEV_STACK, '-c', 'stage=dev-ann'],
    ]);
    // deploy read the stack's outputs back once cdk had run.
    expect(shell.stdout).toContain(`${DEV_STACK} is deployed. Its outputs`);
    // The smoke suite passed against the stage's URL, its throttle check included; verify passed
    // what a lean stack has and skipped its alarm and deployments, saying how to have them.
    expect(shell.stdout).toMatch(/\d+ checks: \d+ passed, 0 failed, 0 skipped\./);
    expect(shell.stdout).toMatch(/^SKIP +alarm notification: a lean stack has no /m);
    expect(shell.stdout).toMatch(/^PASS +usage plans: /m);
    // The pet verify made reached the bus as its PetCreated, through the rule and queue it made and removed.
    expect(shell.stdout).toMatch(/^PASS +.*pet-\d+-v1 \(PetCreated of a pet made for it\) reached /m);
    expect([account.rules.size, account.queues.size]).toEqual([0, 0]);
    // Nothing outlives the stack: every key revoked, every usage identifier deleted from API Gateway.
    expect(account).toMatchObject({ deployed: false, apiKeys: new Map(), usagePlanKeys: new Set() });
    expect((await apiKeysOf(api.tables).list()).filter((record) => !record.revokedAt)).toEqual([]);
    // The contract suite at the smoke plan's pace, about 20 s here: the section's longest step.
  }, 300_000);
});
