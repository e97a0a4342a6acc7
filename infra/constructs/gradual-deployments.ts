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

/** A deployment group per function; an alarm during a deployment rolls the stack update back too. */
export class GradualDeployments extends Construct {
  readonly application: LambdaApplication;

  constructor(scope: Construct, id: string, props: GradualDeploymentsProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application');
    for (const [name, { alias, alarms }] of Object.entries(props.functions)) {
      if (alarms.length === 0) {
        throw new ValidationError(
          `functions.${name}: no alarm, so a bad version could never be rolled back`,
          this,
        );
      }
      const group = new LambdaDeploymentGroup(this, name, {
        application: this.application,
        alias,
        deploymentConfig: props.config,
        alarms: [...alarms],
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      Validations.of(group.role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        reason:
          "CodeDeploy's service role for Lambda deployments: AWS maintains this policy for exactly " +
          'that use (read the alarms, move the alias, invoke hooks named CodeDeployHook_*), the ' +
          'narrowest of the policies AWS offers for it.',
      });
    }
  }
}
