import { APIGatewayClient, GetAccountCommand } from '@aws-sdk/client-api-gateway';
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { OUTPUT } from '#infra/outputs';
import { type DeployClients, main as deploy } from '#tools/deploy/deploy';
import { main as outputs } from '#tools/deploy/outputs';

/**
 * npm run deploy's checks before cdk runs, and what it reads after, against the SDK's own request
 * and response shapes (aws-sdk-client-mock stubs each client's `send`); cdk itself is stood in for.
 */

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);

const CONFIG = {
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
};
const clients = async (): Promise<DeployClients> => ({
  cloudFormation: new CloudFormationClient(CONFIG),
  apiGateway: new APIGatewayClient(CONFIG),
});

const STACK = 'PetStore-dev-ann';
const API_URL = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/v1/';

const stackDoesNotExist = (name: string) =>
  new CloudFormationServiceException({
    name: 'ValidationError',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: `Stack with id ${name} does not exist`,
  });

beforeEach(() => {
  cloudFormation.reset();
  apiGateway.reset();
  // A bootstrapped account with its CloudWatch Logs role; the stack, once cdk has deployed it.
  cloudFormation.on(DescribeStacksCommand, { StackName: 'CDKToolkit' }).resolves({
    Stacks: [{ StackName: 'CDKToolkit', StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date() }],
  });
  cloudFormation.on(DescribeStacksCommand, { StackName: STACK }).resolves({
    Stacks: [
      {
        StackName: STACK,
        StackStatus: 'CREATE_COMPLETE',
        CreationTime: new Date(),
        Outputs: [
          { OutputKey: OUTPUT.apiUrl, OutputValue: API_URL },
          { OutputKey: 'ApiKeysTableName', OutputValue: `${STACK}-TablesApiKeys-1` },
        ],
      },
    ],
  });
  apiGateway.on(GetAccountCommand).resolves({
    cloudwatchRoleArn: 'arn:aws:iam::111122223333:role/apigateway-cloudwatch-logs',
  });
});

afterAll(() => {
  cloudFormation.restore();
  apiGateway.restore();
});

const run = async (argv: readonly string[], action: 'deploy' | 'destroy' = 'deploy', cdkExit = 0) => {
  const out: string[] = [];
  const err: string[] = [];
  const cdkCalls: (readonly string[])[] = [];
  const code = await deploy(action, argv, {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    clients,
    cdk: async (args) => {
      cdkCalls.push(args);
      return cdkExit;
    },
    cdkContext: {},
  });
  return { code, out, err, cdkCalls };
};

describe('npm run deploy', () => {
  it('checks the bootstrap and the CloudWatch Logs role, runs cdk, then prints the outputs it reads back', async () => {
    const { code, out, cdkCalls } = await run(['--stage', 'dev-ann', '--require-approval', 'never']);

    expect(code).toBe(0);
    expect(cdkCalls).toEqual([['deploy', STACK, '-c', 'stage=dev-ann', '--require-approval', 'never']]);
    expect(
      cloudFormation.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input.StackName),
    ).toEqual(['CDKToolkit', STACK]);
    expect(apiGateway.commandCalls(GetAccountCommand)).toHaveLength(1);
    expect(out[0]).toBe(
      `${STACK} is deployed. Its outputs (npm run -s outputs -- --stage dev-ann <name> prints one):`,
    );
    expect(out).toContainEqual(expect.stringMatching(new RegExp(`^ {2}ApiUrl +${API_URL}$`)));
  });

  it('stops before cdk, in one sentence, when the account has no CloudWatch Logs role for API Gateway', async () => {
    apiGateway.on(GetAccountCommand).resolves({ throttleSettings: { rateLimit: 10_000, burstLimit: 5_000 } });

    const { code, err, cdkCalls } = await run(['--stage', 'dev-ann']);

    expect(code).toBe(2);
    expect(cdkCalls).toEqual([]);
    expect(err).toEqual([
      'Cannot deploy: API Gateway has no CloudWatch Logs role in this account and region, without which the stage fails to create: set it once (docs/deploy.md, "Once per account and region"), then deploy again.',
    ]);
  });

  it('stops before cdk when the bootstrap stack is broken, and looks in the one --toolkit-stack-name names', async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'MyToolkit' }).resolves({
      Stacks: [{ StackName: 'MyToolkit', StackStatus: 'ROLLBACK_COMPLETE', CreationTime: new Date() }],
    });

    const { code, err, cdkCalls } = await run(['--stage', 'dev-ann', '--toolkit-stack-name', 'MyToolkit']);

    expect(code).toBe(2);
    expect(cdkCalls).toEqual([]);
    expect(err).toEqual([
      "Cannot deploy: The CDK's bootstrap stack MyToolkit is ROLLBACK_COMPLETE in this account and region: bootstrap again (npx cdk bootstrap), then deploy.",
    ]);
  });

  it('says it could not look, and goes on to cdk, when the credentials may not read the bootstrap or the account', async () => {
    const denied = (service: string) => ({
      name: 'AccessDeniedException',
      $fault: 'client' as const,
      $metadata: {},
      message: `not authorized: ${service}`,
    });
    cloudFormation
      .on(DescribeStacksCommand, { StackName: 'CDKToolkit' })
      .rejects(new CloudFormationServiceException(denied('cloudformation:DescribeStacks')));
    apiGateway.on(GetAccountCommand).rejects(Object.assign(new Error('denied'), denied('apigateway:GET')));

    const { code, err, cdkCalls } = await run(['--stage', 'dev-ann']);

    expect(code).toBe(0);
    expect(cdkCalls).toHaveLength(1);
    expect(err.slice(0, 2)).toEqual([
      "Could not check the CDK's bootstrap (AccessDeniedException): cdk will say if it is missing.",
      'Could not check API Gateway\'s CloudWatch Logs role (AccessDeniedException): the stage fails to create without it (docs/deploy.md, "Once per account and region").',
    ]);
  });

  it("leaves the account's checks to cdk for a stage the CDK context sends to an account of its own", async () => {
    const err: string[] = [];

    const code = await deploy('deploy', ['--stage', 'production'], {
      io: { out: () => {}, err: (line) => err.push(line) },
      clients,
      cdk: async () => 0,
      cdkContext: { 'production:account': '444455556666' },
    });

    expect(code).toBe(0);
    expect(err[0]).toMatch(/^production names its account or region in the CDK context: cdk checks/);
    // Its stack is in that account, which these credentials may not read: cdk printed its outputs.
    expect([...cloudFormation.calls(), ...apiGateway.calls()]).toEqual([]);
  });

  it("returns cdk's exit code when it fails, and reads no outputs", async () => {
    const { code, out } = await run(['--stage', 'dev-ann'], 'deploy', 1);

    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(cloudFormation.commandCalls(DescribeStacksCommand, { StackName: STACK })).toEqual([]);
  });
});

describe('npm run destroy', () => {
  it('checks only the region and the credentials, then runs cdk destroy', async () => {
    const { code, cdkCalls } = await run(['--stage', 'dev-ann', '--force'], 'destroy');

    expect(code).toBe(0);
    expect(cdkCalls).toEqual([['destroy', STACK, '-c', 'stage=dev-ann', '--force']]);
    expect([...cloudFormation.calls(), ...apiGateway.calls()]).toEqual([]);
  });
});

describe('npm run outputs', () => {
  const read = async (argv: readonly string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await outputs(
      argv,
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      async () => new CloudFormationClient(CONFIG),
    );
    return { code, out, err };
  };

  it('prints every output of the stack, or one output’s value alone, for a shell variable', async () => {
    expect((await read(['--stage', 'dev-ann'])).out).toEqual([
      `ApiUrl ${API_URL}`,
      `ApiKeysTableName ${STACK}-TablesApiKeys-1`,
    ]);
    expect(await read(['--stage', 'dev-ann', 'ApiUrl'])).toEqual({ code: 0, out: [API_URL], err: [] });
  });

  it('names the outputs the stack has when asked for one it does not', async () => {
    expect(await read(['--stage', 'dev-ann', 'DashboardName'])).toEqual({
      code: 2,
      out: [],
      err: [
        `Cannot read the outputs: ${STACK} has no output DashboardName: it has ApiUrl, ApiKeysTableName.`,
      ],
    });
  });

  it('says in one sentence that a stack whose deployment failed has no outputs to read', async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: STACK }).rejects(stackDoesNotExist(STACK));

    const { code, err } = await read(['--stage', 'dev-ann', 'ApiUrl']);

    expect(code).toBe(2);
    expect(err).toEqual([
      `Cannot read the outputs: No stack ${STACK} in this account and region: deploy it first (npm run deploy -- --stage dev-ann), or set AWS_REGION to the region it is in.`,
    ]);
  });
});
