import { parseArgs } from 'node:util';
import { assertKeyAccepted, localServerTarget, remoteTarget, TargetError } from '#tools/api-target';
import { QuotaExhausted } from '#tools/contract/api-client';
import { SCAN_PAGES, SeedError, type SeedResult, seedExamplePets } from '#tools/seed/seed-pets';

/** `npm run seed` (USAGE): the example pets added through the API, once; exits 1 on a refusal, 2 when it cannot run. */

const USAGE = `Usage: npm run seed [-- --url <base URL ending in /v1> --key <API key>]
Without --url: the local server npm start runs on $PETSTORE_DATA_DIR (./.data): its port and key, from its lock.`;

const line = ({ pet, outcome }: SeedResult) =>
  `${outcome.padEnd(8)} #${pet.id} ${pet.name} (${pet.status}, category ${pet.categoryId})`;

try {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const target = values.url ? remoteTarget(values.url, values.key) : localServerTarget();
  await assertKeyAccepted(target);
  const { results, storeReadWhole } = await seedExamplePets(target);
  for (const result of results) console.log(line(result));
  const created = results.filter((result) => result.outcome === 'created').length;
  console.log(
    `${results.length} example pets at ${target.baseUrl}: ${created} created, ${results.length - created} already there`,
  );
  if (!storeReadWhole) {
    console.log(
      `The store holds more than ${SCAN_PAGES * 100} pets: only the first ${SCAN_PAGES * 100} were searched for examples; ` +
        'the Idempotency-Keys kept repeats of a run within the last 24 hours out.',
    );
  }
} catch (error) {
  if (error instanceof TargetError || error instanceof QuotaExhausted) {
    console.error(`Cannot seed: ${error.message}`);
    process.exitCode = 2;
  } else if (error instanceof SeedError) {
    console.error(`Seeding stopped: ${error.message}`);
    process.exitCode = 1;
  } else throw error;
}
