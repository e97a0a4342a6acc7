import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ControlTowerChecks } from '#infra/control-tower';
import { PetStoreStack } from '#infra/pet-store-stack';
import { type DevStageName, type StageName, stackName } from '#infra/stage-names';
import { resolveStages } from '#infra/stages';

export interface PetStoreAppOptions extends AppProps {
  /** The process environment: where `CDK_DEFAULT_ACCOUNT` / `CDK_DEFAULT_REGION` come from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Off for template tests that ignore them: cfn-guard is the slowest part of a synth. @default true */
  readonly controlTowerChecks?: boolean;
}

export interface PetStoreApp {
  readonly app: App;
  /** Staging's and production's, and a `dev-<name>` stage's when the context `stage` names one. */
  readonly stacks: Readonly<Record<StageName, PetStoreStack>> &
    Readonly<Partial<Record<DevStageName, PetStoreStack>>>;
}

/** One stack per stage; an unacknowledged cdk-nag or Control Tower finding fails the synth. */
export const createPetStoreApp = (options: PetStoreAppOptions = {}): PetStoreApp => {
  const { env = {}, controlTowerChecks = true, ...appProps } = options;
  const app = new App(appProps);
  const stages = resolveStages({ context: (key) => app.node.tryGetContext(key), env });
  const stacks = Object.fromEntries(
    stages.map((stage) => [stage.name, new PetStoreStack(app, stackName(stage.name), { stage })]),
  ) as PetStoreApp['stacks'];
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  if (controlTowerChecks) Validations.of(app).addPlugins(new ControlTowerChecks());
  return { app, stacks };
};
