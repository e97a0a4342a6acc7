import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPetStoreApp } from '#infra/pet-store-app';
import { PROJECT_ROOT } from '#infra/project-root';
import { type DevStageName, SHAPE_SETTING, STAGE_SETTING } from '#infra/stage-names';
import type { TemplateJson } from '#tools/costs/idle';
import type { CostedTemplates } from '#tools/costs/idle-table';

/** Any name: what a developer stack holds does not depend on it. */
const DEV_STAGE: DevStageName = 'dev-costs';

/**
 * The templates `npm run costs` prices: the app as `cdk synth` builds it (cdk.json's context),
 * without bundling the functions or validating (neither changes what a stack holds), once lean
 * and once full for a developer's stage.
 */
export const synthesizeCostedStacks = (): CostedTemplates => {
  const context = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
  const outdir = mkdtempSync(join(tmpdir(), 'petstore-costs-'));
  try {
    const templates = (shape: Record<string, string>) => {
      const { app, stacks } = createPetStoreApp({
        outdir,
        builtinCloudFormationValidation: false,
        controlTowerChecks: false,
        env: {},
        context: { ...context, 'aws:cdk:bundling-stacks': [], [STAGE_SETTING]: DEV_STAGE, ...shape },
      });
      const assembly = app.synth();
      const of = (stack: { artifactId: string } | undefined): TemplateJson => {
        if (!stack) throw new Error(`The app holds no stack for ${DEV_STAGE}`);
        return assembly.getStackArtifact(stack.artifactId).template as TemplateJson;
      };
      return { staging: of(stacks.staging), production: of(stacks.production), dev: of(stacks[DEV_STAGE]) };
    };
    const lean = templates({});
    const full = templates({ [SHAPE_SETTING]: 'full' });
    return { staging: lean.staging, production: lean.production, devLean: lean.dev, devFull: full.dev };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
