import { parseArgs } from 'node:util';
import { assertKeyAccepted, localServerTarget, remoteTarget } from '#tools/api-target';
import {
  CONSOLE,
  type CommandIo,
  isEntry,
  parsing,
  runCommand,
  USER_ERROR_EXIT,
  UserError,
  wantsHelp,
} from '#tools/command';
import { QuotaExhausted } from '#tools/contract/api-client';
import { SCAN_PAGES, SeedError, type SeedResult, seedExamplePets } from '#tools/seed/seed-pets';

/** `npm run seed` (USAGE): the example pets added through the API, once; exits 1 on a refusal, 2 when it cannot run. */

const USAGE = `Usage: npm run seed [-- --url <base URL ending in /v1> --key <API key>]
Without --url: the local server npm start runs on $PETSTORE_DATA_DIR (./.data): its port and key, from its lock.`;

const line = ({ pet, outcome }: SeedResult) =>
  `${outcome.padEnd(8)} #${pet.id} ${pet.name} (${pet.status}, category ${pet.categoryId})`;

/** `npm run seed`: resolves to the exit code; what a user can fix (no server, a refused key, a bad argument) is one line. */
export const main = async (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: CommandIo = CONSOLE,
): Promise<number> => {
  if (wantsHelp(argv)) {
    io.out(USAGE);
    return 0;
  }
  try {
    const { values } = parsing(() =>
      parseArgs({ args: [...argv], options: { url: { type: 'string' }, key: { type: 'string' } } }),
    );
    const target = values.url ? remoteTarget(values.url, values.key) : localServerTarget(env);
    await assertKeyAccepted(target);
    const { results, storeReadWhole } = await seedExamplePets(target);
    for (const result of results) io.out(line(result));
    const created = results.filter((result) => result.outcome === 'created').length;
    io.out(
      `${results.length} example pets at ${target.baseUrl}: ${created} created, ${results.length - created} already there`,
    );
    if (!storeReadWhole) {
      io.out(
        `The store holds more than ${SCAN_PAGES * 100} pets: only the first ${SCAN_PAGES * 100} were searched for examples; ` +
          'the Idempotency-Keys kept repeats of a run within the last 24 hours out.',
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof UserError || error instanceof QuotaExhausted) {
      io.err(`Cannot seed: ${error.message}`);
      return USER_ERROR_EXIT;
    }
    if (error instanceof SeedError) {
      io.err(`Seeding stopped: ${error.message}`);
      return 1;
    }
    throw error;
  }
};

if (isEntry(import.meta.url)) await runCommand((argv) => main(argv));
