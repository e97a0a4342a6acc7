import { describe, expect, it } from 'vitest';
import { StageNameError } from '#infra/stage-names';
import { cdkArguments } from '#tools/deploy/deploy';

describe('npm run deploy and npm run destroy', () => {
  it("deploy a developer's own stack, with the stage in the context the app reads", () => {
    expect(cdkArguments('deploy', ['--stage', 'dev-ann'])).toEqual([
      'deploy',
      'PetStore-dev-ann',
      '-c',
      'stage=dev-ann',
    ]);
  });

  it('deploy it full with --full, as the context value the app reads, and refuse --full for staging or production', () => {
    expect(cdkArguments('deploy', ['--full', '--stage', 'dev-ann'])).toEqual([
      'deploy',
      'PetStore-dev-ann',
      '-c',
      'stage=dev-ann',
      '-c',
      'shape=full',
    ]);
    expect(() => cdkArguments('deploy', ['--stage', 'production', '--full'])).toThrow(
      /^--full is for a stack of your own \(--stage dev-<name>\): production is always full\.$/,
    );
  });

  it('pass every other argument to cdk unchanged', () => {
    expect(cdkArguments('destroy', ['--force', '--stage=dev-ann'])).toEqual([
      'destroy',
      'PetStore-dev-ann',
      '-c',
      'stage=dev-ann',
      '--force',
    ]);
    expect(cdkArguments('deploy', ['--stage', 'staging', '--require-approval', 'never'])).toEqual([
      'deploy',
      'PetStore-staging',
      '-c',
      'stage=staging',
      '--require-approval',
      'never',
    ]);
  });

  it('refuse a stage name that is not one, in one sentence naming --stage', () => {
    expect(() => cdkArguments('deploy', ['--stage', 'dev-Ann'])).toThrow(
      /^The setting --stage is "dev-Ann": it must be staging, production or dev-<name>/,
    );
    expect(() => cdkArguments('deploy', ['--stage'])).toThrow(StageNameError);
  });

  it('refuse to run without --stage, rather than deploy every stack', () => {
    expect(() => cdkArguments('deploy', ['--all'])).toThrow(/^--stage is required\./);
  });
});
