import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlTowerRules, rulesFor } from '#infra/control-tower';

const names = (paths: readonly string[]) => paths.map((path) => basename(path, '.guard'));

describe('the Control Tower rules run at synthesis', () => {
  it('are the rules that check a resource type the templates hold', () => {
    const picked = names(rulesFor(new Set(['AWS::Lambda::Permission', 'AWS::KMS::Key'])));

    expect(picked).toContain('ct-lambda-pr-2');
    expect(picked).toContain('ct-kms-pr-3');
    expect(picked).not.toContain('ct-lambda-pr-3'); // AWS::Lambda::Function
    expect(picked.some((name) => name.startsWith('ct-s3-'))).toBe(false);
  });

  it('come from the whole rule set of the package, each naming the types it checks', () => {
    const rules = controlTowerRules();

    expect(rules.length).toBeGreaterThan(200);
    expect(rules.filter((rule) => rule.types.length === 0)).toEqual([]);
  });
});
