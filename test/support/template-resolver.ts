import { createHash } from 'node:crypto';

/**
 * A synthesized template's intrinsics resolved to the concrete values a deployment would give them,
 * in a fixed fake account and region: `Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`,
 * `Fn::Split` and the pseudo parameters. Resources without a name of their own get the name
 * CloudFormation generates (`<stack>-<logical id>-<suffix>`). A type or attribute it does not know
 * is an error, never a guess.
 */

export interface Environment {
  readonly account: string;
  readonly region: string;
  readonly partition: string;
}

export interface TemplateJson {
  readonly Resources: Readonly<Record<string, TemplateResource>>;
}

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly UpdatePolicy?: Readonly<Record<string, unknown>>;
}

/** The qualifier a function's `CurrentVersion` resolves to: the version number of one deployment. */
const VERSION = '1';

export class TemplateResolver {
  constructor(
    readonly template: TemplateJson,
    readonly stackName: string,
    readonly env: Environment,
  ) {}

  resource(logicalId: string): TemplateResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new Error(`No resource ${logicalId} in ${this.stackName}`);
    return resource;
  }

  /** Logical ids and resources of one type. */
  ofType(type: string): [string, TemplateResource][] {
    return Object.entries(this.template.Resources).filter(([, resource]) => resource.Type === type);
  }

  property(logicalId: string, name: string): unknown {
    return this.resource(logicalId).Properties?.[name];
  }

  /** A value with every intrinsic in it resolved. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    const [first] = entries;
    if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
      return this.intrinsic(first[0], first[1]);
    }
    return Object.fromEntries(entries.map(([key, inner]) => [key, this.resolve(inner)]));
  }

  /** A value that must resolve to a string. */
  text(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`Expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  arn(service: string, resource: string, region = this.env.region, account = this.env.account): string {
    return `arn:${this.env.partition}:${service}:${region}:${account}:${resource}`;
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [id, attribute] = argument as [string, string];
        return this.getAtt(id, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [number | string, unknown];
        const items = this.resolve(list) as unknown[];
        return items[Number(index)];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return this.text(source).split(separator);
      }
      case 'Fn::Sub': {
        const [pattern, variables = {}] = (typeof argument === 'string' ? [argument] : argument) as [
          string,
          Record<string, unknown>?,
        ];
        return pattern.replace(/\$\{([^}]+)\}/g, (_, key: string) => {
          if (key in variables) return this.text(variables[key]);
          const [id, attribute] = key.split('.');
          return attribute ? String(this.getAtt(id ?? '', attribute)) : String(this.ref(key));
        });
      }
      default:
        throw new Error(`No rule for the intrinsic ${name}`);
    }
  }

  private ref(id: string): unknown {
    switch (id) {
      case 'AWS::AccountId':
        return this.env.account;
      case 'AWS::Region':
        return this.env.region;
      case 'AWS::Partition':
        return this.env.partition;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return this.stackName;
    }
    const resource = this.resource(id);
    const named = (property: string) => this.named(id, property);
    switch (resource.Type) {
      case 'AWS::Lambda::Function':
      case 'AWS::DynamoDB::Table':
      case 'AWS::Logs::LogGroup':
      case 'AWS::IAM::Role':
      case 'AWS::CloudWatch::Alarm':
      case 'AWS::CodeDeploy::Application':
      case 'AWS::CodeDeploy::DeploymentGroup':
        return named(NAME_PROPERTY[resource.Type] ?? '');
      case 'AWS::Lambda::Alias':
        return `${this.getAtt(this.refTarget(this.property(id, 'FunctionName')), 'Arn')}:${this.text(this.property(id, 'Name'))}`;
      case 'AWS::Lambda::Version':
        return `${this.getAtt(this.refTarget(this.property(id, 'FunctionName')), 'Arn')}:${VERSION}`;
      case 'AWS::SNS::Topic':
        return this.arn('sns', named('TopicName'));
      case 'AWS::KMS::Key':
        return fakeUuid(id);
      case 'AWS::ApiGateway::RestApi':
      case 'AWS::ApiGateway::Authorizer':
      case 'AWS::ApiGateway::Resource':
        return fakeId(id, 10);
      case 'AWS::ApiGateway::Stage':
        return this.text(this.property(id, 'StageName'));
      // "AWS::Events::EventBus" (CloudFormation User Guide): Ref is the bus's name.
      case 'AWS::Events::EventBus':
        return named('Name');
      // "AWS::SQS::Queue": Ref is the queue's URL.
      case 'AWS::SQS::Queue':
        return `https://sqs.${this.env.region}.amazonaws.com/${this.env.account}/${named('QueueName')}`;
      default:
        throw new Error(`No Ref rule for ${resource.Type} (${id})`);
    }
  }

  private getAtt(id: string, attribute: string): unknown {
    const resource = this.resource(id);
    const rule = `${resource.Type}.${attribute}`;
    switch (rule) {
      case 'AWS::Lambda::Function.Arn':
        return this.arn('lambda', `function:${this.ref(id)}`);
      case 'AWS::Lambda::Version.Version':
        return VERSION;
      case 'AWS::DynamoDB::Table.Arn':
        return this.arn('dynamodb', `table/${this.ref(id)}`);
      case 'AWS::Logs::LogGroup.Arn':
        return this.arn('logs', `log-group:${this.ref(id)}:*`);
      case 'AWS::IAM::Role.Arn':
        return `arn:${this.env.partition}:iam::${this.env.account}:role/${this.ref(id)}`;
      case 'AWS::KMS::Key.Arn':
        return this.arn('kms', `key/${this.ref(id)}`);
      case 'AWS::CloudWatch::Alarm.Arn':
        return this.arn('cloudwatch', `alarm:${this.ref(id)}`);
      case 'AWS::SNS::Topic.TopicArn':
        return this.ref(id);
      case 'AWS::ApiGateway::RestApi.RootResourceId':
        return fakeId(`${id}/`, 10);
      // A stream's ARN is its table's, `/stream/` and its label (a timestamp DynamoDB gives it).
      case 'AWS::DynamoDB::Table.StreamArn':
        return `${this.getAtt(id, 'Arn')}/stream/2026-12-07T00:00:00.000`;
      case 'AWS::Events::EventBus.Arn':
        return this.arn('events', `event-bus/${this.ref(id)}`);
      case 'AWS::Events::EventBus.Name':
        return this.ref(id);
      case 'AWS::SQS::Queue.Arn':
        return this.arn('sqs', this.named(id, 'QueueName'));
      case 'AWS::SQS::Queue.QueueName':
        return this.named(id, 'QueueName');
      default:
        throw new Error(`No Fn::GetAtt rule for ${rule} (${id})`);
    }
  }

  /** The logical id a `{ Ref }` names. */
  refTarget(value: unknown): string {
    if (typeof value === 'object' && value !== null && 'Ref' in value) return String(value.Ref);
    throw new Error(`Expected a Ref, got ${JSON.stringify(value)}`);
  }

  /** The resource's own name when the template gives one, else the one CloudFormation generates. */
  private named(id: string, property: string): string {
    const given = this.property(id, property);
    return given === undefined ? `${this.stackName}-${id}-${fakeId(id, 12).toUpperCase()}` : this.text(given);
  }
}

const NAME_PROPERTY: Readonly<Record<string, string>> = {
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CodeDeploy::Application': 'ApplicationName',
  'AWS::CodeDeploy::DeploymentGroup': 'DeploymentGroupName',
};

const digest = (seed: string): string => createHash('sha256').update(seed).digest('hex');

/** A stable stand-in for an id AWS generates (lowercase letters and digits). */
const fakeId = (seed: string, length: number): string =>
  BigInt(`0x${digest(seed)}`)
    .toString(36)
    .slice(0, length);

const fakeUuid = (seed: string): string => {
  const hex = digest(seed);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};
