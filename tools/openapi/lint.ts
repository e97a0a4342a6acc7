import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '#infra/project-root';
import { OPENAPI_YAML_PATH } from '#tools/openapi/document-file';
import { REDOCLY_CLI } from '#tools/openapi/reference';

/**
 * `npm run check:openapi`: `redocly lint docs/openapi.yaml`, less the boxed notice Redocly prints on
 * every run under Node.js 20, which the tooling runs on purpose: it would bury the lint result.
 */
const child = spawn(process.execPath, [REDOCLY_CLI, 'lint', OPENAPI_YAML_PATH], {
  cwd: PROJECT_ROOT,
  env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  stdio: ['ignore', 'inherit', 'pipe'],
});

let box: string[] | undefined;
createInterface({ input: child.stderr }).on('line', (line) => {
  if (box === undefined && line.includes('╔')) box = [];
  if (box === undefined) {
    process.stderr.write(`${line}\n`);
    return;
  }
  box.push(line);
  if (!line.includes('╚')) return;
  if (!box.some((text) => text.includes('Node.js 20 support is ending'))) {
    process.stderr.write(`${box.join('\n')}\n`);
  }
  box = undefined;
});

child.on('close', (code) => {
  if (box !== undefined) process.stderr.write(`${box.join('\n')}\n`);
  process.exitCode = code ?? 1;
});
