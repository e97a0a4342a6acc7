import { describe, expect, it } from 'vitest';
import {
  LOCAL_TARGET,
  parseKeysArgs,
  rerunCommand,
  stageOf,
  UnknownScopeError,
  UsageError,
} from '#tools/keys/keys';

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

  it('reads create with a plan, and move with the key and its new plan', () => {
    expect(parseKeysArgs(['create', 'acme', '--plan', 'partner', '--table', TABLE])).toEqual({
      command: 'create',
      name: 'acme',
      plan: 'partner',
      target: { table: TABLE },
    });
    expect(parseKeysArgs(['move', 'key-0123456789ab', '--plan', 'standard', '--table', TABLE])).toEqual({
      command: 'move',
      keyId: 'key-0123456789ab',
      plan: 'standard',
      target: { table: TABLE },
    });
  });

  it('reads create with its scopes, each once and in their declared order, and --json on create and list', () => {
    expect(
      parseKeysArgs([
        'create',
        'both',
        '--scope',
        'write:pets',
        '--scope',
        'read:pets',
        '--json',
        '--table',
        TABLE,
      ]),
    ).toEqual({
      command: 'create',
      name: 'both',
      scopes: ['read:pets', 'write:pets'],
      json: true,
      target: { table: TABLE },
    });
    expect(parseKeysArgs(['list', '--json', '--table', TABLE])).toEqual({
      command: 'list',
      json: true,
      target: { table: TABLE },
    });
  });

  it("reads --local as npm start's keys, found when the command runs, and names it to run again", () => {
    expect(parseKeysArgs(['create', 'reader', '--scope', 'read:pets', '--local'])).toEqual({
      command: 'create',
      name: 'reader',
      scopes: ['read:pets'],
      target: LOCAL_TARGET,
    });
    expect(
      rerunCommand({ table: 'petstore-local-apikeys', endpoint: 'http://127.0.0.1:1', local: true })(
        'revoke key-1',
      ),
    ).toBe('npm run -s keys -- revoke key-1 --local');
  });

  it('refuses a scope the service does not have, in one sentence naming the scopes it has', () => {
    expect(() => parseKeysArgs(['create', 'x', '--scope', 'read:pet', '--table', TABLE])).toThrow(
      new UnknownScopeError('read:pet'),
    );
    expect(new UnknownScopeError('read:pet').message).toBe(
      '"read:pet" is not a scope: the scopes are read:pets, write:pets.',
    );
  });

  it('finds the stage of an AWS table from its name, or asks for --stage', () => {
    expect(stageOf({ table: TABLE })).toBe('staging');
    expect(stageOf({ table: 'PetStore-production-TablesApiKeys1' })).toBe('production');
    expect(stageOf({ table: 'renamed-apikeys', stage: 'production' })).toBe('production');
    expect(() => stageOf({ table: 'renamed-apikeys' })).toThrow(/^--stage is required/);
  });

  it('writes the command to run again for the same target', () => {
    expect(rerunCommand({ table: TABLE, stage: 'staging', region: 'eu-west-1' })('revoke key-1')).toBe(
      `npm run -s keys -- revoke key-1 --table ${TABLE} --stage staging --region eu-west-1`,
    );
  });

  it('reads --help and -h as help, whatever else is given', () => {
    expect(parseKeysArgs(['--help'])).toEqual({ command: 'help' });
    expect(parseKeysArgs(['create', '-h'])).toEqual({ command: 'help' });
  });

  it.each([
    [[], /Missing command: create, list, revoke or move/],
    [['rotate', '--table', TABLE], /Unknown command "rotate"/],
    [['create', '--table', TABLE], /create needs a name/],
    [['create', '  ', '--table', TABLE], /create needs a name/],
    [['revoke', '--table', TABLE], /revoke needs the id/],
    [['move', '--plan', 'partner', '--table', TABLE], /move needs the id/],
    [['move', 'key-0123456789ab', '--table', TABLE], /move needs the plan to put key-0123456789ab on/],
    [['list', '--plan', 'partner', '--table', TABLE], /--plan goes with create or move, not list/],
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
    [['list', '--scope', 'read:pets', '--table', TABLE], /--scope goes with create, not list/],
    [['revoke', 'key-1', '--json', '--table', TABLE], /--json goes with create or list, not revoke/],
    [
      ['list', '--local', '--table', TABLE],
      /--local finds the table and DynamoDB of npm start itself: give it without --table/,
    ],
    [
      ['list', '--local', '--endpoint', 'http://127.0.0.1:1', '--region', 'eu-west-1'],
      /without --region, --endpoint/,
    ],
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

  it("finds a developer's stage from its table's name, and keeps one developer's tools off another's table", () => {
    const annsTable = 'PetStore-dev-ann-TablesApiKeys330F873D-1A2B3C4D5E6F';

    expect(stageOf({ table: annsTable })).toBe('dev-ann');
    expect(parseKeysArgs(['list', '--stage', 'dev-ann', '--table', annsTable])).toEqual({
      command: 'list',
      target: { table: annsTable, stage: 'dev-ann' },
    });
    expect(() => parseKeysArgs(['list', '--stage', 'dev-an', '--table', annsTable])).toThrow(
      `Table "${annsTable}" does not belong to stack PetStore-dev-an`,
    );
  });
});
