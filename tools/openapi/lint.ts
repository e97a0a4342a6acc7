import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from '#infra/project-root';
import { OPENAPI_YAML_PATH } from '#tools/openapi/document-file';
import { REDOCLY_CLI } from '#tools/openapi/reference';

/** `npm run check:openapi`: `redocly lint docs/openapi.yaml`, less Redocly's boxed Node.js 20 notice. */
const lint = spawnSync(process.execPath, [REDOCLY_CLI, 'lint', OPENAPI_YAML_PATH], {
  cwd: PROJECT_ROOT,
  env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  stdio: ['ignore', 'inherit', 'pipe'],
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
process.stderr.write(lint.stderr.replace(/^.*╔[^╚]*Node\.js 20 support is ending[^╚]*╚.*\n/m, ''));
process.exitCode = lint.status ?? 1;
