import { Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { ValidationError } from '#infra/constructs/validation-error';
import { controlTowerRule } from '#infra/control-tower';
import type { DataProtection } from '#infra/stages';
import { ALL_TABLES, type KeyAttribute, type TableDesign } from '#shared/adapters/dynamodb/table-design';
import type { TableKey } from '#shared/config';

export interface TablesProps {
  readonly dataProtection: DataProtection;
}

const attribute = (key: KeyAttribute) => ({
  name: key.name,
  type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
});

/** One per design of `table-design.ts`, as local tables. No physical names, so stages never collide. */
export class Tables extends Construct {
  /** In the order of `ALL_TABLES`. */
  readonly all: readonly { readonly design: TableDesign; readonly table: Table }[];

  constructor(scope: Construct, id: string, props: TablesProps) {
    super(scope, id);
    this.all = ALL_TABLES.map((design) => ({
      design,
      table: this.table(design, props.dataProtection),
    }));
    if (!props.dataProtection.pointInTimeRecovery) {
      Validations.of(this).acknowledge({
        id: 'AwsSolutions-DDB3',
        reason:
          'A disposable stage (staging): its data can be recreated, so it goes without ' +
          'point-in-time recovery, by stage configuration. Production has it.',
      });
      Validations.of(this).acknowledge({
        id: controlTowerRule('dynamodb_table_pitr_enabled_check'),
        reason:
          'Control Tower CT.DYNAMODB.PR.1, the same finding as AwsSolutions-DDB3: staging is ' +
          'disposable by stage configuration; production tables have point-in-time recovery.',
      });
    }
  }

  byKey(key: TableKey): Table {
    const found = this.all.find(({ design }) => design.key === key);
    if (!found) throw new ValidationError(`no table "${key}"`, this);
    return found.table;
  }

  private table(design: TableDesign, protection: DataProtection): Table {
    const table = new Table(this, design.logicalName, {
      partitionKey: attribute(design.partitionKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      // KMS, as Control Tower's CT.DYNAMODB.PR.2 requires, and audited; no monthly fee, a few cents of
      // requests (docs/decisions/0006-tables-keep-the-aws-managed-key.md).
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: protection.deletionProtection,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: protection.pointInTimeRecovery },
      removalPolicy: protection.removalPolicy,
      ...(design.timeToLiveAttribute ? { timeToLiveAttribute: design.timeToLiveAttribute } : {}),
      ...(design.stream ? { stream: StreamViewType[design.stream] } : {}),
    });
    for (const index of design.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        // The listing reads whole pets from the index: projecting everything saves a GetItem per pet.
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}
