import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { createPetStoreApp, type PetStoreApp, type PetStoreAppOptions } from '#infra/pet-store-app';
import { PROJECT_ROOT } from '#infra/project-root';
import type { StackShape, StageName } from '#infra/stage-names';
import { type DevStageName, SHAPE_SETTING, STAGE_SETTING } from '#infra/stage-names';

/** The context `cdk synth` gets from cdk.json (feature flags): tests build the same templates. */
const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8'),
).context;

/**
 * A directory for one cloud assembly, in the project's directory for them, which the run removes
 * (cdk-outdir-global-setup.ts). Any App a test makes needs one: an App without `outdir`, or a
 * Stack made without a scope (which makes its own App), leaves a `cdk.out…` directory behind.
 */
export const testOutdir = (): string => mkdtempSync(join(inject('cdkOutdir'), 'app-'));

/**
 * The app as `cdk synth` builds it, minus the slow parts: no esbuild bundling (the functions get
 * placeholder code) and, unless asked for, no CloudFormation schema validation and no Control
 * Tower rules (cdk-nag runs). No credentials, no account: the stacks are environment-agnostic
 * unless `env` says otherwise.
 */
export const buildTestApp = (options: PetStoreAppOptions = {}): PetStoreApp =>
  createPetStoreApp({
    outdir: testOutdir(),
    builtinCloudFormationValidation: false,
    controlTowerChecks: false,
    ...options,
    env: options.env ?? {},
    context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...options.context },
  });

export interface SynthesizedStages {
  readonly app: PetStoreApp['app'];
  readonly stacks: PetStoreApp['stacks'];
  readonly templates: Readonly<Record<StageName, Template>>;
}

let stages: SynthesizedStages | undefined;

/**
 * Both stages, built and synthesized once per module graph: once per test file where files are
 * isolated, once per worker where they share one (the infra project). The tests only read them:
 * a test that adds to a stack builds an app of its own (buildTestApp).
 */
export const synthStages = (): SynthesizedStages => {
  if (stages) return stages;
  const { app, stacks } = buildTestApp();
  stages = {
    app,
    stacks,
    templates: {
      staging: Template.fromStack(stacks.staging),
      production: Template.fromStack(stacks.production),
    },
  };
  return stages;
};

const devStages = new Map<string, ReturnType<typeof buildDevStage>>();

const buildDevStage = (stage: DevStageName, shape: StackShape) => {
  const { app, stacks } = buildTestApp({
    // As `npm run deploy` passes them: no shape setting for the default, lean.
    context: { [STAGE_SETTING]: stage, ...(shape === 'full' ? { [SHAPE_SETTING]: shape } : {}) },
  });
  const stack = stacks[stage];
  if (!stack) throw new Error(`The app holds no stack for ${stage}`);
  return { app, stacks, stack, template: Template.fromStack(stack) };
};

/**
 * The app as `npm run deploy -- --stage <stage>` (with `--full`, `shape` full) builds it: staging,
 * production and the developer's stage. Built once per stage name, shape and module graph, as
 * synthStages is: read it only.
 */
export const synthDevStage = (stage: DevStageName = 'dev-test', shape: StackShape = 'lean') => {
  const key = `${stage} ${shape}`;
  const built = devStages.get(key) ?? buildDevStage(stage, shape);
  devStages.set(key, built);
  return built;
};
