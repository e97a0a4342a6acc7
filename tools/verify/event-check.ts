import { randomUUID } from 'node:crypto';
import {
  DeleteRuleCommand,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { OUTPUT } from '#infra/outputs';
import { PET_EVENTS_SOURCE } from '#shared/events/pet-events';
import { describe } from '#tools/command';
import { SMOKE_PREFIX } from '#tools/pet-names';
import {
  check,
  type Finding,
  fail,
  outputOf,
  pass,
  skip,
  sleep,
  type VerifyContext,
} from '#tools/verify/check';

/**
 * A smoke write's event, seen on the bus: a rule of its own on the stage's bus sends the pet's
 * PetCreated to a queue of its own; the pet is created through the API, its event awaited in the
 * queue, then the pet, the rule and the queue are removed. Only with a key of the stage (--key):
 * it writes to the stage.
 */

/** A new rule may take a few seconds to match ("Amazon EventBridge rules"): the write waits that long. */
export const RULE_SETTLES_MS = 5_000;
const RECEIVE_WAIT_SECONDS = 10;

export const eventsReachTheBus = check('events reach the bus', async (context) => {
  const { clients, stack, apiKey, eventWaitMs, ruleSettlesMs } = context;
  if (apiKey === undefined)
    return skip(
      `not tried: give --key <an API key of ${stack.name}> to create a pet and see its PetCreated reach the bus (through a rule and a queue made for it, removed after with the pet)`,
    );
  const busName = outputOf(stack, OUTPUT.eventBus);
  const apiUrl = outputOf(stack, OUTPUT.apiUrl);
  const suffix = randomUUID().slice(0, 8);
  const petName = `${SMOKE_PREFIX}events-${suffix}`;
  const name = `${stack.name}-verify-${suffix}`;
  const made: { petId?: number; rule?: string; busName: string; queueUrl?: string } = { busName };
  let finding: Finding;
  try {
    finding = await seeOneEvent();
  } catch (error) {
    finding = fail(
      `could not try it (${describe(error)}); the caller needs the permissions of docs/deploy.md, "What verify needs"`,
    );
  }
  const left = await cleanUp(context, made);
  return left.length === 0 ? finding : fail(`${finding.line}; could NOT remove ${left.join('; ')}`);

  async function seeOneEvent(): Promise<Finding> {
    let queueUrl: string | undefined;
    ({ QueueUrl: queueUrl } = await clients.sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { SqsManagedSseEnabled: 'true', MessageRetentionPeriod: '600' },
      }),
    ));
    made.queueUrl = queueUrl;
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    const queueArn = Attributes?.QueueArn ?? '';
    const { RuleArn } = await clients.eventBridge.send(
      new PutRuleCommand({
        Name: name,
        EventBusName: busName,
        Description: 'npm run verify: one PetCreated to a queue, removed right after',
        EventPattern: JSON.stringify({
          source: [PET_EVENTS_SOURCE],
          'detail-type': ['PetCreated'],
          detail: { pet: { name: [petName] } },
        }),
        State: 'ENABLED',
      }),
    );
    made.rule = name;
    await clients.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: queueUrl,
        Attributes: {
          Policy: JSON.stringify({
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'events.amazonaws.com' },
                Action: 'sqs:SendMessage',
                Resource: queueArn,
                Condition: { ArnEquals: { 'aws:SourceArn': RuleArn } },
              },
            ],
          }),
        },
      }),
    );
    await clients.eventBridge.send(
      new PutTargetsCommand({
        Rule: name,
        EventBusName: busName,
        Targets: [{ Id: 'verify', Arn: queueArn }],
      }),
    );
    await sleep(ruleSettlesMs);
    const created = await fetch(new URL('pets', apiUrl), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        'User-Agent': 'pet-store-verify',
      },
      body: JSON.stringify({ name: petName, categoryId: 1 }),
    });
    const body = (await created.json().catch(() => ({}))) as { id?: number; code?: string };
    if (created.status !== 201)
      return fail(
        `POST /pets answered ${created.status} ${body.code ?? ''}: give a key of ${stack.name} whose plan allows a write`,
      );
    const petId = body.id;
    made.petId = petId;
    const eventId = `pet-${petId}-v1`;
    const started = Date.now();
    while (Date.now() - started < eventWaitMs) {
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          WaitTimeSeconds: RECEIVE_WAIT_SECONDS,
          MaxNumberOfMessages: 10,
        }),
      );
      const found = Messages.some(
        (message) =>
          (JSON.parse(message.Body ?? '{}') as { detail?: { eventId?: string } }).detail?.eventId === eventId,
      );
      if (found)
        return pass(
          `${eventId} (PetCreated of a pet made for it) reached ${busName} within ${Math.ceil((Date.now() - started) / 1_000)} s`,
        );
    }
    return fail(
      `no PetCreated for pet ${petId} on ${busName} within ${Math.round(eventWaitMs / 1_000)} s: look at the publisher's log group, its iterator age and the failures queue (docs/operate.md, "Events not published")`,
    );
  }
});

/** Each removal tried, whatever failed before it; what is left, named with the command that removes it. */
const cleanUp = async (
  { clients, stack, apiKey }: VerifyContext,
  made: { petId?: number; rule?: string; busName: string; queueUrl?: string },
): Promise<string[]> => {
  const left: string[] = [];
  const attempt = async (what: string, remove: () => Promise<unknown>) => {
    try {
      await remove();
    } catch {
      left.push(what);
    }
  };
  if (made.petId !== undefined)
    await attempt(`pet ${made.petId} (DELETE /pets/${made.petId})`, async () => {
      const response = await fetch(new URL(`pets/${made.petId}`, outputOf(stack, OUTPUT.apiUrl)), {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${apiKey}`, 'User-Agent': 'pet-store-verify' },
      });
      if (response.status !== 204 && response.status !== 404) throw new Error(String(response.status));
    });
  if (made.rule) {
    const rule = made.rule;
    await attempt(
      `rule ${rule} (aws events remove-targets, then delete-rule --event-bus-name ${made.busName})`,
      async () => {
        await clients.eventBridge.send(
          new RemoveTargetsCommand({ Rule: rule, EventBusName: made.busName, Ids: ['verify'] }),
        );
        await clients.eventBridge.send(new DeleteRuleCommand({ Name: rule, EventBusName: made.busName }));
      },
    );
  }
  if (made.queueUrl) {
    const queueUrl = made.queueUrl;
    await attempt(`queue ${queueUrl} (aws sqs delete-queue)`, () =>
      clients.sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })),
    );
  }
  return left;
};
