import { Duration, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { type Archive, EventBus } from 'aws-cdk-lib/aws-events';
import { CfnRegistry, CfnSchema } from 'aws-cdk-lib/aws-eventschemas';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CfnEventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { petEventsPublisher } from '#functions/publish-pet-events';
import type { ApiFunction } from '#infra/constructs/api-function';
import { ValidationError } from '#infra/constructs/validation-error';
import { controlTowerRule } from '#infra/control-tower';
import type { StageConfig } from '#infra/stages';
import { ENV } from '#shared/config';
import { PET_EVENTS_SOURCE } from '#shared/events/pet-events';
import { registrySchemas } from '#tools/asyncapi/build-document';

export interface PetEventsProps {
  readonly stage: StageConfig;
  /** The pets table, with its stream. */
  readonly table: Table;
  /** The publisher's function; its role gets exactly the calls it makes. */
  readonly publisher: ApiFunction;
}

/** SQS's longest: a batch given up on is looked at within it (its records stay in the stream 24 hours). */
const FAILURES_RETENTION = Duration.days(14);

/**
 * The pets' events: the stage's bus and its archive, the events' schemas in a registry (in a full
 * stack), and the
 * publisher fed by the pets table's stream through an event source mapping whose given-up
 * batches go to a queue. The publisher's role may read its stream, put events on its bus and
 * send to its queue, nothing more.
 */
export class PetEvents extends Construct {
  readonly bus: EventBus;
  readonly archive: Archive;
  /** In a full stack (and staging and production): consumers find the schemas there, developers in docs/asyncapi.yaml. */
  readonly registry: CfnRegistry | undefined;
  /** The mapping's on-failure destination: each message is a batch's place in the stream. */
  readonly failures: Queue;
  readonly mapping: CfnEventSourceMapping;

  constructor(scope: Construct, id: string, props: PetEventsProps) {
    super(scope, id);
    const { stage, table, publisher } = props;
    const streamArn = table.tableStreamArn;
    if (!streamArn) throw new ValidationError('the pets table has no stream to publish from', this);
    this.bus = new EventBus(this, 'Bus', { description: `Pet store ${stage.name}: the pets' events` });
    this.archive = this.bus.archive('Archive', {
      description: `Every pet event of ${stage.name}, kept ${stage.events.archiveRetentionDays} days for replays`,
      eventPattern: { source: [PET_EVENTS_SOURCE] },
      retention: Duration.days(stage.events.archiveRetentionDays),
    });
    this.registry = stage.shape === 'full' ? this.schemaRegistry(stage) : undefined;
    this.failures = new Queue(this, 'Failures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: FAILURES_RETENTION,
    });
    this.grantPublisher(publisher, streamArn);
    publisher.function.addEnvironment(ENV.eventBus, this.bus.eventBusName);
    this.mapping = this.eventSourceMapping(publisher, streamArn);
    this.acknowledgeFindings(publisher);
  }

  /** A registry of the stage's own, each event's schema in it (`<source>@<detail-type>`, as discovered ones are named). */
  private schemaRegistry(stage: StageConfig): CfnRegistry {
    const registry = new CfnRegistry(this, 'Schemas', {
      description: `Pet store ${stage.name}: the schemas of the pets' events (docs/asyncapi.yaml)`,
    });
    for (const { name, content } of registrySchemas()) {
      new CfnSchema(this, `${name}Schema`, {
        registryName: registry.attrRegistryName,
        schemaName: `${PET_EVENTS_SOURCE}@${name}`,
        type: 'OpenApi3',
        description: `${name}, as EventBridge delivers it to a target`,
        content,
      });
    }
    return registry;
  }

  /**
   * "Process DynamoDB records with Lambda", its execution role permissions: DescribeStream,
   * GetRecords, GetShardIterator on the stream (ListStreams takes no resource: `*`); sqs:SendMessage
   * for its on-failure destination; and events:PutEvents on its bus only.
   */
  private grantPublisher(publisher: ApiFunction, streamArn: string): void {
    const grants = [
      {
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      },
      { actions: ['dynamodb:ListStreams'], resources: ['*'] },
      { actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] },
      { actions: ['sqs:SendMessage'], resources: [this.failures.queueArn] },
    ];
    for (const grant of grants) publisher.role.addToPrincipalPolicy(new PolicyStatement(grant));
  }

  /**
   * On what the publisher's invokers invoke (its `live` alias in a full stack, where CodeDeploy shifts
   * the mapping's traffic too; the function in a lean one), with the settings of the publisher's
   * module, which `npm start` polls with too.
   */
  private eventSourceMapping(publisher: ApiFunction, streamArn: string): CfnEventSourceMapping {
    const { mapping } = petEventsPublisher;
    const eventSourceMapping = new CfnEventSourceMapping(this, 'Mapping', {
      functionName: publisher.invoked.functionArn,
      eventSourceArn: streamArn,
      startingPosition: mapping.startingPosition,
      batchSize: mapping.batchSize,
      maximumBatchingWindowInSeconds: mapping.maxBatchingWindowSeconds,
      functionResponseTypes: mapping.reportBatchItemFailures ? ['ReportBatchItemFailures'] : [],
      bisectBatchOnFunctionError: mapping.bisectBatchOnError,
      maximumRetryAttempts: mapping.retryAttempts,
      maximumRecordAgeInSeconds: mapping.maxRecordAgeSeconds,
      parallelizationFactor: mapping.parallelizationFactor,
      destinationConfig: { onFailure: { destination: this.failures.queueArn } },
    });
    // Lambda checks the role can read the stream when it creates the mapping.
    eventSourceMapping.node.addDependency(publisher.role);
    return eventSourceMapping;
  }

  private acknowledgeFindings(publisher: ApiFunction): void {
    Validations.of(publisher.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Two actions that support no resource-level permissions: X-Ray tracing (xray:PutTraceSegments, ' +
        "xray:PutTelemetryRecords) and dynamodb:ListStreams, which Lambda's event source mapping needs " +
        'and which lists stream ARNs only; every other action of this role names its stream, bus or queue.',
    });
    const isTheDeadLetterQueue =
      'It is the dead-letter queue itself: the on-failure destination of the events publisher, where each message is the place in the stream of a batch given up on (docs/operate.md, "Events not published").';
    Validations.of(this.failures).acknowledge(
      { id: 'AwsSolutions-SQS3', reason: isTheDeadLetterQueue },
      { id: controlTowerRule('sqs_dlq_check'), reason: isTheDeadLetterQueue },
    );
  }
}
