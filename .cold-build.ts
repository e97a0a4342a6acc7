import { build, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { esbuildOptions } from '#infra/bundling';
import { PROJECT_ROOT } from '#infra/project-root';
const [entry, out, noAlias] = process.argv.slice(2);
const opts = esbuildOptions(join(PROJECT_ROOT, entry), out);
const { metafile } = await build({ ...opts, ...(noAlias ? { alias: {} } : {}), absWorkingDir: PROJECT_ROOT, metafile: true });
writeFileSync(`${out}.meta.json`, JSON.stringify(metafile));
const totals = new Map<string, number>();
for (const o of Object.values((metafile as Metafile).outputs)) for (const [i, { bytesInOutput }] of Object.entries(o.inputs)) { const k = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(i)?.[1] ?? '(project)'; totals.set(k, (totals.get(k) ?? 0) + bytesInOutput); }
console.log([...totals].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`).join('\n'));
