import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ControlTowerChecks } from '#infra/control-tower';
import { PetStoreStack } from '#infra/pet-store-stack';
import { type DevStageName, type StageName, stackName } from '#infra/stage-names';
import { resolveStages } from '#infra/stages';

export interface PetStoreAppOptions extends AppProps {
  /** The process environment: where `CDK_DEFAULT_ACCOUNT` / `CDK_DEFAULT_REGION` come from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Run AWS Control Tower's proactive rules (cfn-guard) at synthesis. Template tests that do not
   * look at them leave them out: cfn-guard is the slowest part of a synth.
   * @default true
   */
  readonly controlTowerChecks?: boolean;
}

export interface PetStoreApp {
  readonly app: App;
  /** Staging's and production's, and a `dev-<name>` stage's when the context `stage` names one. */
  readonly stacks: Readonly<Record<StageName, PetStoreStack>> &
    Readonly<Partial<Record<DevStageName, PetStoreStack>>>;
}

/**
 * The CDK app: one stack per stage, checked at synthesis by cdk-nag (AwsSolutions) and by AWS
 * Control Tower's proactive rules (cfn-guard, infra/control-tower.ts). Every finding is either
 * fixed or acknowledged next to its cause, with the reason; an unacknowledged one fails the synth.
 */
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
