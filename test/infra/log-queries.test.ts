import { describe, expect, it } from 'vitest';
import { PLACEHOLDER } from '#infra/constructs/log-queries';
import { OUTPUT } from '#infra/outputs';
import { STAGE_NAMES, stackName } from '#infra/stage-names';
import { REQUEST_ID_LOG_KEY } from '#shared/observability/logger';
import { OPERATION_FUNCTIONS, STACK_FUNCTIONS } from '../support/functions';
import { synthStages } from '../support/pet-store-app';
import { functionId, onlyResource, referencedIds, resourcesOfType } from '../support/template-queries';

const { templates } = synthStages();

/** The functions, by the names their log group outputs carry, and their descriptions. */
const FUNCTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  STACK_FUNCTIONS.map(({ name, description }) => [name, description]),
);

describe.each(STAGE_NAMES)('%s saved Logs Insights queries', (stageName) => {
  const template = templates[stageName];
  const stage = stackName(stageName);
  const queries = new Map(
    resourcesOfType(template, 'AWS::Logs::QueryDefinition').map(([, query]) => [
      String(query.Properties.Name),
      {
        text: String(query.Properties.QueryString),
        logGroups: [...referencedIds(query.Properties.LogGroupNames)],
      },
    ]),
  );
  const [, stageResource] = onlyResource(template, 'AWS::ApiGateway::Stage');
  const accessLogSetting = stageResource.Properties.AccessLogSetting as { Format: string };
  // Every value a JSON string, the pre-quoted error message too, so that the fields read as text.
  const accessLogFormat = JSON.parse(
    accessLogSetting.Format.replace('$context.error.messageString', '"$context.error.messageString"'),
  ) as Record<string, string>;
  const accessLogs = [...referencedIds(accessLogSetting)][0] ?? '';
  const logsOf = (name: string): string => {
    const fn = template.findResources('AWS::Lambda::Function')[functionId(template, FUNCTIONS[name] ?? name)];
    return [...referencedIds(fn?.Properties.LoggingConfig)][0] ?? '';
  };
  const handlerLogs = OPERATION_FUNCTIONS.map(({ name }) => logsOf(name));

  it(`saves four queries, listed under ${stage}/ in the console`, () => {
    expect([...queries.keys()].sort()).toEqual(
      [
        `${stage}/One request by requestId`,
        `${stage}/The authorizer call of a request by authorizerRequestId`,
        `${stage}/Errors by code (last hour)`,
        `${stage}/Slowest requests`,
      ].sort(),
    );
  });

  it("finds one request's lines by requestId across the access log and the operations' logs", () => {
    const query = queries.get(`${stage}/One request by requestId`);

    expect(query?.logGroups.sort()).toEqual([accessLogs, ...handlerLogs].sort());
    expect(query?.text).toContain(
      `| filter requestId = "${PLACEHOLDER.requestId}" or correlation_id = "${PLACEHOLDER.requestId}"\n`,
    );
    expect(query?.text).toContain('| sort @timestamp asc');
  });

  it("looks for the request id API Gateway generated under the names the access log and the functions' lines give it", () => {
    expect(accessLogFormat.requestId).toBe('$context.extendedRequestId');
    expect(REQUEST_ID_LOG_KEY).toBe('correlation_id');
  });

  it("finds a request's authorizer lines by the authorizer request id its access log line names", () => {
    const query = queries.get(`${stage}/The authorizer call of a request by authorizerRequestId`);

    expect(query?.logGroups).toEqual([logsOf('Authorizer')]);
    expect(accessLogFormat.authorizerRequestId).toBe('$context.authorizer.requestId');
    expect(query?.text).toContain(`| filter function_request_id = "${PLACEHOLDER.authorizerRequestId}"`);
  });

  it("counts errors by the functions' code and API Gateway's own error type, leaving EMF lines out", () => {
    const query = queries.get(`${stage}/Errors by code (last hour)`);

    expect(query?.logGroups.sort()).toEqual([accessLogs, ...handlerLogs].sort());
    expect(accessLogFormat.errorType).toBe('$context.error.responseType');
    expect(query?.text).toBe(
      'fields coalesce(code, errorType) as error\n' +
        '| filter (ispresent(level) and ispresent(code)) or (ispresent(errorType) and errorType != "-")\n' +
        '| stats count(*) as requests by error\n' +
        '| sort requests desc',
    );
  });

  it('lists the slowest requests from the access log, by the latency the client saw', () => {
    const query = queries.get(`${stage}/Slowest requests`);

    expect(query?.logGroups).toEqual([accessLogs]);
    for (const field of ['responseLatency', 'requestId', 'method', 'resourcePath', 'status']) {
      expect(accessLogFormat).toHaveProperty(field);
    }
    expect(query?.text).toBe(
      'stats max(responseLatency) as latencyMs by requestId, method, resourcePath, status\n' +
        '| sort latencyMs desc\n' +
        '| limit 25',
    );
  });

  it('outputs the name of the access log group and of each function log group', () => {
    template.hasOutput(OUTPUT.accessLogs, { Value: { Ref: accessLogs } });
    for (const name of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      template.hasOutput(OUTPUT.functionLogs(name), { Value: { Ref: logsOf(name) } });
    }
  });
});
