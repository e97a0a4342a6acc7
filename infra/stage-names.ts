/** The stages, by name; no CDK here, so command-line tools can import it cheaply. */
export type StageName = 'staging' | 'production';

export const STAGE_NAMES: readonly StageName[] = ['staging', 'production'];

/** Stack name of a stage: `PetStore-staging`, `PetStore-production`. */
export const stackName = (stage: StageName): string => `PetStore-${stage}`;
