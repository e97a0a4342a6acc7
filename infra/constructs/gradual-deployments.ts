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

export interface GradualDeploymentTarget {
  /** `live`, which CodeDeploy shifts from the old version to the new one. */
  readonly alias: Alias;
  /** Any of these in ALARM during a deployment stops it and sends all traffic back to the old version. */
  readonly alarms: readonly IAlarm[];
}

export interface GradualDeploymentsProps {
  readonly config: ILambdaDeploymentConfig;
  readonly functions: Readonly<Record<string, GradualDeploymentTarget>>;
}

/**
 * A CodeDeploy deployment group per function: it shifts a changed function's alias as `config`
 * says, and moves it back (and the stack update rolls back) if one of its alarms fires meanwhile.
 */
export class GradualDeployments extends Construct {
  readonly application: LambdaApplication;
  readonly groups: Readonly<Record<string, LambdaDeploymentGroup>>;

  constructor(scope: Construct, id: string, props: GradualDeploymentsProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application');
    this.groups = Object.fromEntries(
      Object.entries(props.functions).map(([name, target]) => [name, this.group(name, target, props.config)]),
    );
  }

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
