import { Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaApplication,
  LambdaDeploymentGroup,
} from 'aws-cdk-lib/aws-codedeploy';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ValidationError } from '#infra/constructs/validation-error';

/** A function deployed gradually: the alias CodeDeploy moves, and the alarms that stop it. */
export interface GradualDeploymentTarget {
  /** The alias callers invoke (`live`); CodeDeploy shifts it from the old version to the new one. */
  readonly alias: Alias;
  /** Any of these in ALARM during a deployment stops it and sends all traffic back to the old version. */
  readonly alarms: readonly IAlarm[];
}

export interface GradualDeploymentsProps {
  /** How traffic shifts to a new version: the stage's `deployment` (a canary, or all at once). */
  readonly config: ILambdaDeploymentConfig;
  /** Every function to deploy gradually, by a name that says which. */
  readonly functions: Readonly<Record<string, GradualDeploymentTarget>>;
}

/**
 * Gradual deployments of the stage's functions: one CodeDeploy application, and a deployment
 * group per function. When a deployment changes a function, CloudFormation publishes a new
 * version and hands the move of its alias to CodeDeploy, which shifts traffic as `config` says;
 * if one of the function's alarms fires meanwhile (or the deployment fails or is stopped),
 * CodeDeploy moves the alias back to the old version and the stack update rolls back.
 */
export class GradualDeployments extends Construct {
  readonly application: LambdaApplication;
  /** Each function's deployment group, by the names of `functions`. */
  readonly groups: Readonly<Record<string, LambdaDeploymentGroup>>;

  constructor(scope: Construct, id: string, props: GradualDeploymentsProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application');
    this.groups = Object.fromEntries(
      Object.entries(props.functions).map(([name, target]) => [name, this.group(name, target, props.config)]),
    );
  }

  /** The deployment group of one function: its alias, the stage's config, rollback on its alarms. */
  private group(name: string, target: GradualDeploymentTarget, config: ILambdaDeploymentConfig) {
    if (target.alarms.length === 0) {
      throw new ValidationError(
        `functions.${name}: no alarm, so a bad version could never be rolled back`,
        this,
      );
    }
    const group = new LambdaDeploymentGroup(this, name, {
      application: this.application,
      alias: target.alias,
      deploymentConfig: config,
      alarms: [...target.alarms],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
    Validations.of(group.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "CodeDeploy's service role for Lambda deployments: AWS maintains this policy for exactly " +
        'that use (read the alarms, move the alias, invoke hooks named CodeDeployHook_*), the ' +
        'narrowest of the policies AWS offers for it.',
    });
    return group;
  }
}
