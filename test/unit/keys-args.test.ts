import { describe, expect, it } from 'vitest';
import { parseKeysArgs, UsageError } from '#tools/keys/keys';

const TABLE = 'PetStore-staging-TablesApiKeys330F873D-1A2B3C4D5E6F';

describe('keys command line', () => {
  it('reads create with a key name and the table', () => {
    expect(parseKeysArgs(['create', 'ci-bot', '--table', TABLE])).toEqual({
      command: 'create',
      name: 'ci-bot',
      target: { table: TABLE },
    });
  });

  it('reads list and revoke with stage, region and endpoint in any order', () => {
    expect(parseKeysArgs(['--stage', 'staging', 'list', '--table', TABLE, '--region', 'eu-west-1'])).toEqual({
      command: 'list',
      target: { table: TABLE, stage: 'staging', region: 'eu-west-1' },
    });
    expect(
      parseKeysArgs([
        'revoke',
        'key-0123456789ab',
        '--endpoint',
        'http://127.0.0.1:8000',
        '--table',
        'local-apikeys',
      ]),
    ).toEqual({
      command: 'revoke',
      keyId: 'key-0123456789ab',
      target: { table: 'local-apikeys', endpoint: 'http://127.0.0.1:8000' },
    });
  });

  it('reads --help and -h as help, whatever else is given', () => {
    expect(parseKeysArgs(['--help'])).toEqual({ command: 'help' });
    expect(parseKeysArgs(['create', '-h'])).toEqual({ command: 'help' });
  });

  it.each([
    [[], /Missing command/],
    [['rotate', '--table', TABLE], /Unknown command "rotate"/],
    [['create', '--table', TABLE], /create needs a name/],
    [['create', '  ', '--table', TABLE], /create needs a name/],
    [['revoke', '--table', TABLE], /revoke needs the id/],
    [['list', 'extra', '--table', TABLE], /list takes no argument/],
    [['create', 'a', 'b', '--table', TABLE], /Unexpected argument/],
    [['list'], /--table is required$/],
    [
      ['list', '--stage', 'production'],
      /--table is required: the ApiKeysTableName output of stack PetStore-production/,
    ],
    [['list', '--stage', 'prod', '--table', TABLE], /--stage must be one of staging, production/],
    [['list', '--table', TABLE, '--verbose'], /Unknown option '--verbose'/],
    [['list', '--table'], /argument missing/],
    [['list', '--table', 'x-apikeys', '--endpoint', 'localhost:8000'], /--endpoint must be an http\(s\) URL/],
  ])('fails on %j', (argv, message) => {
    expect(() => parseKeysArgs(argv)).toThrow(UsageError);
    expect(() => parseKeysArgs(argv)).toThrow(message);
  });

  it("fails when the table belongs to another stage's stack", () => {
    expect(() =>
      parseKeysArgs(['revoke', 'key-0123456789ab', '--stage', 'production', '--table', TABLE]),
    ).toThrow(
      'Table "PetStore-staging-TablesApiKeys330F873D-1A2B3C4D5E6F" does not belong to stack PetStore-production',
    );
  });
});
