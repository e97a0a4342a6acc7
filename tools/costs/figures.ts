import { STAGE_DEFAULTS } from '#infra/stages';
import type { IdleCost } from '#tools/costs/idle';
import type { CostedStack } from '#tools/costs/idle-table';
import { PRICES } from '#tools/costs/prices';
import { authorizerCall, eventBytes, GIB, MEASURED, MEMORY_GB } from '#tools/costs/requests';

/**
 * Every figure the prose of the docs gives about what the stacks cost or hold, as the words it is
 * written in, made from the cost model: test/infra/idle-costs.test.ts finds each in its document,
 * and fails on a dollar figure or a count of resources that none of these is.
 */
export interface Figure {
  /** Relative to the project root. */
  readonly file: string;
  /** The words, whitespace aside (a line may wrap anywhere in them). */
  readonly text: string;
}

const usd = (value: number, digits = 2) => `$${value.toFixed(digits)}`;

/** A month, as the per-month figures count it. */
const MONTH_SECONDS = 30 * 86_400;

/** Hours in a month, as AWS's pricing pages prorate by the hour. */
const HOURS_A_MONTH = 730;

/**
 * DynamoDB asks KMS for a table's key "once every 5 minutes per client connection with active
 * traffic" (Amazon DynamoDB Developer Guide, "Encryption at rest: How it works"), and a Lambda
 * environment keeps its connection: 12 an hour, all month.
 */
const KEY_REQUESTS_A_MONTH = 12 * HOURS_A_MONTH;

/** X-Ray's default sampling rule: the first request of each second, and 5% of the others. */
const tracedShare = (perSecond: number) => (1 + 0.05 * (perSecond - 1)) / perSecond;

export const docFigures = (idle: Readonly<Record<CostedStack, IdleCost>>): Figure[] => {
  const lambdaPerMillion = (seconds: number) => MEMORY_GB * seconds * 1e6 * PRICES.lambdaArmGbSecond.usd;
  const authorizerTtl = STAGE_DEFAULTS.production.authorizerCacheTtlSeconds;
  const authorizerCalls = MONTH_SECONDS / authorizerTtl;
  const lean = idle.devLean.usd.total;
  const full = idle.devFull.usd.total;
  const keyRequests = (KEY_REQUESTS_A_MONTH * PRICES.kmsPer10kRequests.usd) / 10_000;
  const tableClients = idle.staging.tableClients;
  const archivedGb = (eventBytes('PetCreated') * 1e6) / GIB;
  const staging = idle.staging;
  const costs = [
    `even at 25 ms, a request's Lambda duration costs ${usd(lambdaPerMillion(0.025))} per million`,
    `at most ${authorizerCalls.toLocaleString('en-US')} calls a month per key in constant use, about ${usd(authorizerCalls * authorizerCall())} a month per key`,
    `nearly all are traced, ${usd(PRICES.xrayPerMillionTraces.usd)} per million; at a sustained 100 a second, about ${Math.round(tracedShare(100) * 100)}%, ${usd(tracedShare(100) * PRICES.xrayPerMillionTraces.usd)} per million`,
    `a million lists leave ${((MEASURED.list.logBytes * 1e6) / GIB).toFixed(2)} GB of logs`,
    `at most ${usd(PRICES.logsStorageGbMonth.usd)} per GB-month, a few cents`,
    `a million creates leave about ${archivedGb.toFixed(2)} GB, ${usd(archivedGb * PRICES.eventBridgeArchiveGbMonth.usd, 3)} a month for as long as they are kept; a year of them, at most about ${usd(12 * archivedGb * PRICES.eventBridgeArchiveGbMonth.usd)}`,
    `at most ${KEY_REQUESTS_A_MONTH.toLocaleString('en-US')} requests a month, ${usd(keyRequests)}, for each table`,
    `${tableClients} such pairs of an environment and a table in a stage, ${usd(tableClients * keyRequests)} a month`,
    `costs ${usd(PRICES.customMetricMonth.usd)} for each month it receives data`,
    `a thousand of them cost about ${usd((1_000 * lambdaPerMillion(0.15)) / 1e6, 3)}`,
    `a web ACL and its rules would cost ${usd(staging.usd.firewall)} a month, as staging's does`,
    `A lean stack costs ${usd(lean)} a month idle`,
    `about ${full.toFixed(2)} / ${HOURS_A_MONTH} = ${usd(full / HOURS_A_MONTH, 3)}`,
    `DynamoDB storage at ${usd(PRICES.dynamoDbStorageGbMonth.usd)} per GB-month`,
    `point-in-time recovery in production at ${usd(PRICES.dynamoDbBackupGbMonth.usd)} per GB-month`,
    `${usd(PRICES.wafWebAclMonth.usd)} a month for the web ACL, ${usd(PRICES.wafRuleMonth.usd)} a month per rule (${staging.firewallRules} rules: ${usd(staging.firewallRules * PRICES.wafRuleMonth.usd)}), and ${usd(PRICES.wafPerMillion.usd)} per million requests inspected`,
    `Production at 10 million requests a month: about ${usd(idle.production.usd.firewall + 10 * PRICES.wafPerMillion.usd)}`,
    `Staging's firewall costs its ${usd(staging.usd.firewall)} a month idle`,
  ];
  const yourOwn = [
    `${idle.devLean.resources} resources, which cost ${usd(lean)} a month while idle`,
    `${idle.devFull.resources} resources, ${usd(full)} a month idle`,
  ];
  const deploy = [
    `a lean stack costs ${usd(lean)} a month idle`,
    `A full one (\`--full\`) costs ${usd(full)} a month idle, ${usd(full / HOURS_A_MONTH, 3)} an hour`,
  ];
  return [
    ...costs.map((text) => ({ file: 'docs/costs.md', text })),
    ...yourOwn.map((text) => ({ file: 'README.md', text })),
    ...[...yourOwn, ...deploy].map((text) => ({ file: 'docs/deploy.md', text })),
  ];
};
