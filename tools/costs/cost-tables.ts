import { type CostedTemplates, idleTable } from '#tools/costs/idle-table';
import { pricesTable } from '#tools/costs/prices';
import { eventsTable, measuredTable, perMillionTable } from '#tools/costs/requests';
import { generatedTable } from '#tools/openapi/operations-table';

const COSTS_MD = 'docs/costs.md';
const marker = (name: string) => `<!-- costs:${name}: made by npm run costs -->`;

/** docs/costs.md's tables, each made from the cost model (and the idle one from the synthesized stacks). */
export const COST_TABLES = {
  prices: generatedTable<CostedTemplates>(COSTS_MD, marker('prices'), pricesTable),
  events: generatedTable<CostedTemplates>(COSTS_MD, marker('events'), eventsTable),
  measured: generatedTable<CostedTemplates>(COSTS_MD, marker('measured'), measuredTable),
  perMillion: generatedTable<CostedTemplates>(COSTS_MD, marker('per-million'), perMillionTable),
  idle: generatedTable<CostedTemplates>(COSTS_MD, marker('idle'), idleTable),
} as const;
