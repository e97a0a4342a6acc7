/** The stages, by name; no CDK here, so command-line tools can import it cheaply. */
export type StageName = 'staging' | 'production';

export const STAGE_NAMES: readonly StageName[] = ['staging', 'production'];

export type DevStageName = `dev-${string}`;

export type AnyStageName = StageName | DevStageName;

export const DEV_STAGE_PREFIX = 'dev-';

/** Generated names (64 characters, cut from the stack's name first) still show whose stack it is. */
export const DEV_NAME_MAX_LENGTH = 20;

/** No hyphen: tools find a stack's resources by `<stack>-`, and `dev-ann` would prefix `dev-ann-2`. */
const DEV_NAME = new RegExp(`^[a-z][a-z0-9]{0,${DEV_NAME_MAX_LENGTH - 1}}$`);

/** The setting the app and `npm run deploy` read a stage from: `-c stage=dev-<name>`, `--stage dev-<name>`. */
export const STAGE_SETTING = 'stage';

export class StageNameError extends Error {
  override readonly name = 'StageNameError';
}

export const isPipelineStage = (value: string): value is StageName =>
  (STAGE_NAMES as readonly string[]).includes(value);

export const isDevStageName = (value: string): value is DevStageName =>
  value.startsWith(DEV_STAGE_PREFIX) && DEV_NAME.test(value.slice(DEV_STAGE_PREFIX.length));

export const parseStageName = (value: unknown, setting = STAGE_SETTING): AnyStageName => {
  const text = typeof value === 'string' ? value.trim() : '';
  if (isPipelineStage(text) || isDevStageName(text)) return text;
  throw new StageNameError(
    `The setting ${setting} is "${String(value)}": it must be staging, production or ${DEV_STAGE_PREFIX}<name>, where <name> is 1 to ${DEV_NAME_MAX_LENGTH} lowercase letters and digits starting with a letter (e.g. ${DEV_STAGE_PREFIX}ann).`,
  );
};

export const stackName = (stage: AnyStageName): string => `PetStore-${stage}`;
