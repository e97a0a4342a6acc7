import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PetStoreStack } from '#infra/pet-store-stack';
import { resolveStages, type StageName, stackName } from '#infra/stages';

export interface PetStoreAppOptions extends AppProps {
  /** The process environment: where `CDK_DEFAULT_ACCOUNT` / `CDK_DEFAULT_REGION` come from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface PetStoreApp {
  readonly app: App;
  readonly stacks: Readonly<Record<StageName, PetStoreStack>>;
}

/**
 * The CDK app: one stack per stage, checked by cdk-nag (AwsSolutions) at synthesis. Every finding
 * is either fixed or acknowledged next to its cause, with the reason; an unacknowledged one fails
 * the synth.
 */
export const createPetStoreApp = (options: PetStoreAppOptions = {}): PetStoreApp => {
  const { env = {}, ...appProps } = options;
  const app = new App(appProps);
  const stages = resolveStages({ context: (key) => app.node.tryGetContext(key), env });
  const stacks = Object.fromEntries(
    stages.map((stage) => [stage.name, new PetStoreStack(app, stackName(stage.name), { stage })]),
  ) as Record<StageName, PetStoreStack>;
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stacks };
};
