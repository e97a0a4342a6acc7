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

/** A stage setting (its name, a developer stage's shape) the app cannot build from: one sentence, said as is. */
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

/**
 * What a stack holds beside the service. `full`: what operating production needs too (alarms, the
 * topic they notify and its key, the dashboard, the metric filters the alarms read, the saved
 * queries, the `live` aliases and CodeDeploy's gradual deployments). `lean`: the service alone
 * (functions, API and authorizer, tables, usage plans, access log). Staging and production are
 * `full`; a `dev-<name>` stage is `lean` unless asked for `full` (docs/deploy.md, "A stack of your own").
 */
export type StackShape = 'lean' | 'full';

export const STACK_SHAPES: readonly StackShape[] = ['lean', 'full'];

/** The setting the app reads a developer stage's shape from: `-c shape=full` (`npm run deploy -- --full`). */
export const SHAPE_SETTING = 'shape';

/** A developer stage's shape from the setting `setting` names: lean when it is absent. */
export const parseStackShape = (value: unknown, setting = `-c ${SHAPE_SETTING}`): StackShape => {
  if (value === undefined) return 'lean';
  const text = typeof value === 'string' ? value.trim() : '';
  if ((STACK_SHAPES as readonly string[]).includes(text)) return text as StackShape;
  throw new StageNameError(
    `The setting ${setting} is "${String(value)}": it must be ${STACK_SHAPES.join(' or ')} (lean when absent).`,
  );
};
