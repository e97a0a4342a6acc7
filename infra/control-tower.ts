import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type IPolicyValidationContextBeta1,
  type IPolicyValidationPluginBeta1,
  type PolicyValidationPluginReportBeta1,
  Validations,
} from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * AWS Control Tower's proactive controls (cfn-guard). Loading all ~300 rules takes about 4 s: this
 * plugin hands it only those checking a type the templates hold (0.7 s), picked at every synth.
 */

const require = createRequire(import.meta.url);
const PACKAGE_DIR = dirname(require.resolve('@cdklabs/cdk-validator-cfnguard/package.json'));
export const CONTROL_TOWER_RULES_DIR = join(PACKAGE_DIR, 'rules', 'control-tower', 'cfn-guard');

/** As a rule names them in its code (`let X = "AWS::Lambda::Function"`), comments left out. */
const typesOf = (ruleText: string): string[] =>
  ruleText
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .flatMap((line) =>
      [...line.matchAll(/["'](AWS::[A-Za-z0-9]+::[A-Za-z0-9]+)["']/g)].map((match) => match[1] ?? ''),
    );

let rules: readonly { readonly path: string; readonly types: readonly string[] }[] | undefined;
export const controlTowerRules = () => {
  rules ??= readdirSync(CONTROL_TOWER_RULES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.guard'))
    .sort()
    .map((file) => {
      const path = join(CONTROL_TOWER_RULES_DIR, file);
      return { path, types: typesOf(readFileSync(path, 'utf8')) };
    });
  return rules;
};

const resourceTypes = (templatePaths: readonly string[]): Set<string> =>
  new Set(
    templatePaths.flatMap((path) =>
      Object.values(
        (JSON.parse(readFileSync(path, 'utf8')) as { Resources?: Record<string, { Type: string }> })
          .Resources ?? {},
      ).map((resource) => resource.Type),
    ),
  );

export const rulesFor = (types: ReadonlySet<string>): string[] =>
  controlTowerRules()
    .filter((rule) => rule.types.length === 0 || rule.types.some((type) => types.has(type)))
    .map((rule) => rule.path);

/** The plugin: cfn-guard's, named as it is (acknowledgements use its name), on the rules that apply. */
export class ControlTowerChecks implements IPolicyValidationPluginBeta1 {
  readonly name = 'cdk-validator-cfnguard';
  readonly version: string = (require('@cdklabs/cdk-validator-cfnguard/package.json') as { version: string })
    .version;

  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const applicable = rulesFor(resourceTypes(context.templatePaths));
    if (applicable.length === 0) return { success: true, violations: [] };
    return new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: applicable }).validate(context);
  }
}

export const controlTowerRule = (rule: string): string => `cdk-validator-cfnguard::${rule}`;

/** CT.CLOUDWATCH.PR.2 wants a year's retention, PR.3 a KMS key. */
export const acknowledgeLogGroupRules = (logGroup: IConstruct): void => {
  Validations.of(logGroup).acknowledge(
    {
      id: controlTowerRule('cloudwatch_log_group_retention_period_check'),
      reason:
        'Logs are kept as long as the stage needs them (infra/stages.ts: 7 days in staging, 90 in ' +
        'production, retained when the stack is deleted): they hold request metadata such as ' +
        'source IPs, which should not be kept a year for no use, at a year of storage cost.',
    },
    {
      id: controlTowerRule('cloudwatch_log_group_encrypted_check'),
      reason:
        'CloudWatch Logs encrypts every log group at rest with keys it manages. These logs hold no ' +
        'secret (API keys are never logged; access logs name a key by its id), so a customer ' +
        'managed key and its per-region key policy would add cost, not protection.',
    },
  );
};

/** CT.LAMBDA.PR.2 reads a `SourceArn` only as a literal or plain reference, not our `Fn::Join`. */
export const acknowledgeApiGatewayInvoke = (scope: IConstruct): void => {
  Validations.of(scope).acknowledge({
    id: controlTowerRule('lambda_function_public_access_prohibited_check'),
    reason:
      'Only API Gateway may invoke the function, and only for this API: the permission has a ' +
      'SourceArn, this API’s execute-api ARN built with Fn::Join from its id, which the rule ' +
      'cannot read as a string. Nothing else, and no other account, can invoke it.',
  });
};
