import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { wantsHelp } from '#tools/command';

/** `npm run costs`: docs/costs.md's tables from the cost model and the synthesized stacks (the CDK loads after --help). */
if (wantsHelp(process.argv.slice(2))) {
  console.log(`Usage: npm run costs
Writes docs/costs.md's tables from the cost model (tools/costs/) and the stacks, synthesized offline
(staging, production, and a developer's lean and full); test/infra/idle-costs.test.ts fails when one is stale.`);
  process.exit(0);
}
const [{ COST_TABLES }, { synthesizeCostedStacks }] = await Promise.all([
  import('#tools/costs/cost-tables'),
  import('#tools/costs/costed-stacks'),
]);
const templates = synthesizeCostedStacks();
for (const table of Object.values(COST_TABLES)) {
  writeFileSync(table.path, table.update(table.read(), templates));
  console.log(`Wrote the table below ${table.marker} in ${relative(process.cwd(), table.path)}`);
}
