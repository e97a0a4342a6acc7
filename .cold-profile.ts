import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getPetRoot } from '#functions/get-pet/root';
import { OPERATIONS } from '#functions/operations';
import { authorizerRoot } from '#functions/authorizer/root';
import { startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { findLambdaNode } from './bench/lambda-node';
import { adminFor, createBenchTables, seedPets } from './bench/tables';
import { benchTargets, childEnvironment } from './bench/targets';

// usage: tsx .cold-profile.ts <outdir> <name>=<bundle> ...
const [outDir = '/tmp/cold/prof', ...pairs] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
const db = await startDynamoDbLocal();
const admin = adminFor(db.endpoint);
const names = await createBenchTables(admin, 'prof');
await seedPets(admin, names, 30);
const node = findLambdaNode();
const targets = benchTargets('key');
for (const pair of pairs) {
  const [label = '', bundle = ''] = pair.split('=');
  const fn = label.replace(/-old$|-new$|-[a-z0-9]+$/, '');
  const target = targets.find((t) => t.name === fn) ?? targets.find((t) => label.startsWith(t.name));
  if (!target) throw new Error(`no target for ${label}`);
  const script = `const before = new Set(process.moduleLoadList);
    const t0 = performance.now();
    const { handler } = await import(${JSON.stringify(bundle)});
    const t1 = performance.now(); globalThis.__trap = "call";
    const atImport = process.moduleLoadList.filter((m) => !before.has(m));
    const event = ${JSON.stringify(target.event)};
    if (event.requestContext) event.requestContext.requestTimeEpoch = Date.now();
    const context = { functionName: 'f', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 10000 };
    const answer = await handler(event, context);
    const t2 = performance.now();
    const afterImport = new Set(atImport);
    const atCall = process.moduleLoadList.filter((m) => !before.has(m) && !afterImport.has(m));
    process.stdout.write(JSON.stringify({ status: answer.statusCode ?? answer.principalId, importMs: t1 - t0, callMs: t2 - t1, atImport, atCall }) + '\\n');
    process.exit(0);`;
  const env = childEnvironment(target, db.endpoint, names);
  const run = spawnSync(node.path, ['--cpu-prof', `--cpu-prof-dir=${outDir}`, `--cpu-prof-name=${label}.cpuprofile`, '--cpu-prof-interval=100', '--input-type=module', '--eval', script], { env, encoding: 'utf8' });
  const line = run.stdout.split('\n').find((l) => l.startsWith('{"status"'));
  writeFileSync(join(outDir, `${label}.json`), line ?? run.stdout + run.stderr); writeFileSync(join(outDir, `${label}.stderr`), run.stderr);
  const r = line ? JSON.parse(line) : {};
  console.log(label, r.status, r.importMs?.toFixed(1), r.callMs?.toFixed(1), 'import mods', r.atImport?.length, 'call mods', r.atCall?.length);
}
admin.client.destroy();
await db.stop();
void getPetRoot; void OPERATIONS; void authorizerRoot;
