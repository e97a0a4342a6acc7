/** The stages, by name; no CDK here, so command-line tools can import it cheaply. */
export type StageName = 'staging' | 'production';

export const STAGE_NAMES: readonly StageName[] = ['staging', 'production'];

/** A developer's own stage, `dev-<name>`: a stack of its own, everything in it destroyable. */
export type DevStageName = `dev-${string}`;

/** Any stage a stack can be deployed as: the pipeline's two, or a developer's. */
export type AnyStageName = StageName | DevStageName;

export const DEV_STAGE_PREFIX = 'dev-';

/**
 * The longest `<name>` of `dev-<name>`. The stack's name starts the names CloudFormation gives the
 * functions and roles (64 characters at most, cut from the stack's name first), the dashboard
 * (`PetStore-dev-<name>-<region>`), the usage plans, the saved queries and the keys' usage
 * identifiers: at 20 characters each still shows whose stack it is.
 */
export const DEV_NAME_MAX_LENGTH = 20;

/**
 * Lowercase letters and digits, starting with a letter. No hyphen: `dev-ann` would then be a prefix
 * of `dev-ann-2`, and the tools tell a stack's resources by the stack's name followed by a hyphen.
 */
const DEV_NAME = new RegExp(`^[a-z][a-z0-9]{0,${DEV_NAME_MAX_LENGTH - 1}}$`);

/** The setting the app and `npm run deploy` read a stage from: `-c stage=dev-<name>`, `--stage dev-<name>`. */
export const STAGE_SETTING = 'stage';

export class StageNameError extends Error {
  override readonly name = 'StageNameError';
}

/** `staging` or `production`: a stage the pipeline deploys. */
export const isPipelineStage = (value: string): value is StageName =>
  (STAGE_NAMES as readonly string[]).includes(value);

export const isDevStageName = (value: string): value is DevStageName =>
  value.startsWith(DEV_STAGE_PREFIX) && DEV_NAME.test(value.slice(DEV_STAGE_PREFIX.length));

/**
 * `value` as a stage name, or a StageNameError whose one sentence names the setting and says what
 * a name may hold.
 */
export const parseStageName = (value: unknown, setting = STAGE_SETTING): AnyStageName => {
  const text = typeof value === 'string' ? value.trim() : '';
  if (isPipelineStage(text) || isDevStageName(text)) return text;
  throw new StageNameError(
    `The setting ${setting} is "${String(value)}": it must be staging, production or ${DEV_STAGE_PREFIX}<name>, where <name> is 1 to ${DEV_NAME_MAX_LENGTH} lowercase letters and digits starting with a letter (e.g. ${DEV_STAGE_PREFIX}ann).`,
  );
};

/** Stack name of a stage: `PetStore-staging`, `PetStore-production`, `PetStore-dev-ann`. */
export const stackName = (stage: AnyStageName): string => `PetStore-${stage}`;
