import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommandIo } from '#tools/command';
import { main as deploy } from '#tools/deploy/deploy';
import { main as outputs } from '#tools/deploy/outputs';
import { main as keys } from '#tools/keys/keys';
import { main as seed } from '#tools/seed/seed';
import { main as smoke } from '#tools/smoke/smoke';
import { main as verify } from '#tools/verify/verify';
import { closedPort, EXPIRED, type FakeAws, type FakeAwsCall, startFakeAws } from '../support/fake-aws';

/**
 * Each mistake a user can make with an operator command, made for real: the real SDK clients,
 * pointed by AWS_ENDPOINT_URL at a port nothing listens on (no network) or at an endpoint that
 * answers with AWS's own errors in each service's wire shape (expired credentials, no such stack
 * or table in the region), and arguments the command does not take. Each is one line and exit 2,
 * never a stack trace.
 */

/** Credentials and a region that work, anywhere the SDK looks; nothing from this machine's AWS setup. */
const AWS_SET_UP = {
  AWS_REGION: 'eu-west-1',
  AWS_DEFAULT_REGION: '',
  AWS_PROFILE: '',
  AWS_CONFIG_FILE: '/nonexistent/aws/config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws/credentials',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: '',
  AWS_WEB_IDENTITY_TOKEN_FILE: '',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
  AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_MAX_ATTEMPTS: '1',
};

interface Run {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

const collected = async (run: (io: CommandIo) => Promise<number>): Promise<Run> => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run({ out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
};

/** cdk must not run: every case stops before it. */
const noCdk = async (): Promise<number> => {
  throw new Error('cdk ran');
};

const STAGE = ['--stage', 'dev-ann'];
const TABLE = 'PetStore-dev-ann-TablesApiKeys330F873D-1A2B3C4D5E6F';

/** The commands that call AWS, each with arguments it takes. */
const AWS_COMMANDS = {
  deploy: (io: CommandIo) => deploy('deploy', STAGE, { io, cdk: noCdk, cdkContext: {} }),
  verify: (io: CommandIo) => verify(STAGE, io),
  keys: (io: CommandIo) => keys(['list', ...STAGE, '--table', TABLE], io),
  outputs: (io: CommandIo) => outputs([...STAGE, 'ApiUrl'], io),
} as const;

/** Exit 2, one line that is a sentence, no stack trace. */
const expectOneSentence = (run: Run, sentence: RegExp) => {
  expect(run.code).toBe(2);
  expect(run.err).toHaveLength(1);
  expect(run.err[0]).toMatch(sentence);
  // A stack trace's lines: `    at fn (file:line:column)`.
  expect(run.err[0]).not.toMatch(/\n|\bat .+:\d+:\d+\)?$/m);
  expect(run.out).toEqual([]);
};

const withAws = (env: Record<string, string>) => {
  for (const [name, value] of Object.entries({ ...AWS_SET_UP, ...env })) vi.stubEnv(name, value);
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('no network: nothing answers at AWS_ENDPOINT_URL', () => {
  it.each(Object.entries(AWS_COMMANDS))(
    '%s says AWS cannot be reached, and while doing what',
    async (name, command) => {
      withAws({ AWS_ENDPOINT_URL: `http://127.0.0.1:${await closedPort()}` });

      const run = await collected(command);

      // keys names the region only when given one (--region): its clients resolve it from AWS_REGION.
      const where = name === 'keys' ? '' : ' in eu-west-1';
      expectOneSentence(
        run,
        new RegExp(`AWS cannot be reached while .+${where} \\(ECONNREFUSED\\): check the network`),
      );
    },
  );

  it.each([
    ['smoke', smoke],
    ['seed', seed],
  ] as const)('%s says no API answers at the URL', async (_name, command) => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;

    const run = await collected((io) => command(['--url', url, '--key', 'psk_x'], {}, io));

    expectOneSentence(
      run,
      new RegExp(`^Cannot (run the smoke suite|seed): No API answers at ${url} \\(ECONNREFUSED\\)`),
    );
  });
});

describe('expired credentials: AWS answers ExpiredToken', () => {
  let aws: FakeAws;
  beforeAll(async () => {
    aws = await startFakeAws(EXPIRED);
  });
  afterAll(() => aws.close());

  it.each(Object.entries(AWS_COMMANDS))(
    '%s says they expired and to sign in again',
    async (_name, command) => {
      withAws({ AWS_ENDPOINT_URL: aws.endpoint, AWS_SESSION_TOKEN: 'expired' });

      const run = await collected(command);

      expectOneSentence(
        run,
        /Your AWS credentials have expired \(ExpiredToken(Exception)?, while .+\): sign in again \(aws sso login/,
      );
    },
  );
});

describe('a wrong region, or no such stack: AWS answers that it has none', () => {
  let aws: FakeAws;
  /** What each service says of a stack or table it does not have. */
  const notHere = (call: FakeAwsCall) =>
    call.protocol === 'json'
      ? { code: 'ResourceNotFoundException', status: 400, message: 'Requested resource not found' }
      : { code: 'ValidationError', status: 400, message: 'Stack with id PetStore-dev-ann does not exist' };
  beforeAll(async () => {
    aws = await startFakeAws(notHere);
  });
  afterAll(() => aws.close());

  const SAID = {
    deploy:
      /^Cannot deploy: This account and region are not bootstrapped for the CDK \(no stack CDKToolkit\): run npx cdk bootstrap once/,
    verify:
      /^Cannot verify: No stack PetStore-dev-ann in this account and region: deploy it first .+ or set AWS_REGION/,
    keys: /^No table PetStore-dev-ann-TablesApiKeys\S+ in this account and region: give the stack's ApiKeysTableName output as --table, and its region as --region/,
    outputs: /^Cannot read the outputs: No stack PetStore-dev-ann in this account and region/,
  } as const;

  it.each(Object.entries(AWS_COMMANDS))(
    '%s says what is not there, and how to find it',
    async (name, command) => {
      withAws({ AWS_ENDPOINT_URL: aws.endpoint });

      const run = await collected(command);

      expectOneSentence(run, SAID[name as keyof typeof SAID]);
    },
  );
});

describe('no credentials and no region: a shell that never signed in', () => {
  it.each(Object.entries(AWS_COMMANDS))(
    '%s names aws sso login, AWS_PROFILE and AWS_REGION, calling nothing',
    async (_name, command) => {
      const aws = await startFakeAws(EXPIRED);
      try {
        withAws({
          AWS_ENDPOINT_URL: aws.endpoint,
          AWS_REGION: '',
          AWS_ACCESS_KEY_ID: '',
          AWS_SECRET_ACCESS_KEY: '',
        });

        const run = await collected(command);

        expectOneSentence(
          run,
          /No AWS credentials and no region: sign in \(aws sso login --profile <name>\) and set AWS_PROFILE .+ set AWS_REGION/,
        );
        expect(aws.calls).toEqual([]);
      } finally {
        await aws.close();
      }
    },
  );
});

describe('an argument the command does not take', () => {
  it.each([
    [
      'deploy',
      (io: CommandIo) => deploy('deploy', ['--stage', 'Ann'], { io, cdk: noCdk, cdkContext: {} }),
      /--stage is "Ann"/,
    ],
    [
      'deploy --full on production',
      (io: CommandIo) =>
        deploy('deploy', ['--stage', 'production', '--full'], { io, cdk: noCdk, cdkContext: {} }),
      /--full is for a stack of your own/,
    ],
    [
      'verify',
      (io: CommandIo) => verify(['--stag', 'dev-ann'], io),
      /Unknown option '--stag'.+\(see --help\)$/,
    ],
    [
      'keys',
      (io: CommandIo) => keys(['frobnicate', '--table', TABLE], io),
      /^Unknown command "frobnicate": create, list, revoke or move/,
    ],
    ['outputs', (io: CommandIo) => outputs([...STAGE, '--bogus'], io), /Unknown option '--bogus'/],
    [
      'smoke',
      (io: CommandIo) => smoke(['--bogus'], {}, io),
      /^Cannot run the smoke suite: Unknown option '--bogus'/,
    ],
    ['seed', (io: CommandIo) => seed(['--bogus'], {}, io), /^Cannot seed: Unknown option '--bogus'/],
  ] as const)('%s says which, in one sentence pointing at --help', async (_name, command, sentence) => {
    withAws({});

    const run = await collected(command);

    expectOneSentence(run, sentence);
  });
});

describe('--help and -h', () => {
  it.each([
    ['deploy', (argv: string[], io: CommandIo) => deploy('deploy', argv, { io, cdk: noCdk })],
    ['verify', (argv: string[], io: CommandIo) => verify(argv, io)],
    ['keys', (argv: string[], io: CommandIo) => keys(argv, io)],
    ['outputs', (argv: string[], io: CommandIo) => outputs(argv, io)],
    ['smoke', (argv: string[], io: CommandIo) => smoke(argv, {}, io)],
    ['seed', (argv: string[], io: CommandIo) => seed(argv, {}, io)],
  ] as const)('%s prints its usage, exit 0, whatever else is given', async (_name, command) => {
    for (const help of ['--help', '-h']) {
      const run = await collected((io) => command(['--bogus', help], io));

      expect(run.code).toBe(0);
      expect(run.out.join('\n')).toMatch(/^Usage/);
      expect(run.err).toEqual([]);
    }
  });
});
