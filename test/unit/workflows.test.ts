import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '#infra/project-root';
import { STAGE_DEFAULTS } from '#infra/stages';
import { ENV } from '#shared/config';

/**
 * The GitHub Actions workflows users copy: each checked against GitHub's workflow schema by
 * action-validator, and held to what docs/deploy.md says the pipeline does.
 */

const WORKFLOWS = join(PROJECT_ROOT, '.github/workflows');
const read = (name: string) => readFileSync(join(WORKFLOWS, name), 'utf8');

type Step = { uses?: string; run?: string; with?: Record<string, string> };
type Job = {
  if?: string;
  needs?: string | string[];
  environment?: { name: string };
  permissions?: Record<string, string>;
  steps: Step[];
};
const jobsOf = (name: string) => (parse(read(name)) as { jobs: Record<string, Job> }).jobs;

describe('the workflows', () => {
  it.each(readdirSync(WORKFLOWS))('%s is a valid GitHub Actions workflow', (name) => {
    expect(validateWorkflow(read(name)).errors).toEqual([]);
  });

  it('are checked for real: a misspelt key is an error', () => {
    const broken = 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    stepz: []\n';

    expect(validateWorkflow(broken).errors).not.toEqual([]);
  });
});

describe('CI', () => {
  it('runs the project CI entry point, .ci/run, on every push to main and every pull request', () => {
    const workflow = parse(read('ci.yml')) as { on: Record<string, unknown> };

    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(jobsOf('ci.yml').test?.steps.some((step) => step.run === 'bash .ci/run')).toBe(true);
  });
});

describe('deploy', () => {
  const jobs = jobsOf('deploy.yml');

  it('deploys staging, then production only after staging, in the protected production environment', () => {
    expect(jobs.staging?.environment?.name).toBe('staging');
    expect(jobs.production?.needs).toBe('staging');
    expect(jobs.production?.environment?.name).toBe('production');
  });

  it.each(['staging', 'production'])('deploys %s with an OIDC role, never with stored AWS keys', (stage) => {
    const job = jobs[stage] as Job;
    const credentials = job.steps.find((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials'),
    );

    expect(job.permissions?.['id-token']).toBe('write');
    expect(Object.keys(credentials?.with ?? {}).sort()).toEqual(['aws-region', 'role-to-assume']);
    expect(read('deploy.yml')).not.toMatch(/aws-access-key-id|aws-secret-access-key/);
  });

  it.each([
    ['staging', 'PetStore-staging'],
    ['production', 'PetStore-production'],
  ])('deploys the %s stack with cdk, then runs the smoke suite against it', (stage, stack) => {
    const runs = (jobs[stage] as Job).steps.map((step) => step.run ?? '');
    const deploy = runs.findIndex((run) => run.includes(`npx cdk deploy ${stack} `));
    const smoke = runs.findIndex((run) => run.startsWith('npm run smoke'));

    expect(deploy).toBeGreaterThanOrEqual(0);
    expect(smoke).toBeGreaterThan(deploy);
  });

  it('verifies staging in AWS after its smoke run, and deploys production only when both passed', () => {
    const steps = (jobs.staging as Job).steps as (Step & { 'continue-on-error'?: unknown })[];
    const smoke = steps.findIndex((step) => step.run?.startsWith('npm run smoke'));
    const verify = steps.findIndex((step) => step.run === 'npm run verify -- --stage staging');

    expect(verify).toBeGreaterThan(smoke);
    expect(smoke).toBeGreaterThan(0);
    expect([jobs.production?.needs].flat()).toContain('staging');
    for (const step of [steps[smoke], steps[verify]]) {
      expect(step?.['continue-on-error']).toBeUndefined();
      expect(step?.run).not.toMatch(/\|\||; *true|set \+e/);
    }
    // Not production: its alarm check would notify whoever production's alarms page.
    expect((jobs.production as Job).steps.some((step) => step.run?.startsWith('npm run verify'))).toBe(false);
  });

  it('smokes production read-only, so production holds no smoke pets; staging gets the whole suite', () => {
    const smokeOf = (stage: string) =>
      (jobs[stage] as Job).steps.map((step) => step.run ?? '').find((run) => run.startsWith('npm run smoke'));

    expect(smokeOf('production')).toMatch(/ --read-only$/);
    expect(smokeOf('staging')).not.toContain('--read-only');
  });

  it("smokes staging with an origin it allows, so the CORS checks run, and every stage with the key of the environment's secret", () => {
    const stagingSmoke = (jobs.staging as Job).steps.find((step) => step.run?.startsWith('npm run smoke'));
    const smokes = ['staging', 'production'].map((stage) =>
      (jobs[stage] as Job).steps.find((step) => step.run?.startsWith('npm run smoke')),
    ) as (Step & { env?: Record<string, string> })[];

    expect(stagingSmoke?.run).toContain(` --origin ${STAGE_DEFAULTS.staging.allowedOrigins[0]}`);
    expect(STAGE_DEFAULTS.staging.allowedOrigins).toHaveLength(1);
    for (const smoke of smokes) {
      // Read from the environment, so that an empty secret (no key yet) gets smoke's own sentence.
      expect(smoke.env?.[ENV.smoke.apiKey]).toBe(['$', '{{ secrets.SMOKE_API_KEY }}'].join(''));
      expect(smoke.run).not.toContain('--key');
    }
  });

  it("deploys after CI only for pushes to this repository, never for a fork's pull request", () => {
    const condition = jobs.staging?.if ?? '';

    expect(condition).toContain("github.event.workflow_run.conclusion == 'success'");
    expect(condition).toContain("github.event.workflow_run.event == 'push'");
    expect(condition).toContain('github.event.workflow_run.head_repository.full_name == github.repository');
    expect(jobs.production?.if).toBeUndefined();
  });
});
