import type { Template } from 'aws-cdk-lib/assertions';

/** Small lookups over a synthesized template, for assertions that follow references. */

export interface CfnResource {
  readonly Type: string;
  /** Empty when the template has none. */
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

const entries = (template: Template, type: string): [string, CfnResource][] =>
  Object.entries(template.findResources(type) as Record<string, Partial<CfnResource>>).map(
    ([id, resource]) => [id, { ...resource, Properties: resource.Properties ?? {} } as CfnResource],
  );

/** The one resource of a type whose properties pass `match`; fails when there is not exactly one. */
export const onlyResource = (
  template: Template,
  type: string,
  match: (properties: Record<string, unknown>) => boolean = () => true,
): [string, CfnResource] => {
  const found = entries(template, type).filter(([, resource]) => match(resource.Properties));
  if (found.length !== 1) throw new Error(`Expected one ${type}, found ${found.length}`);
  return found[0] as [string, CfnResource];
};

export const resourcesOfType = entries;

/** Logical id of the Lambda function with this description. */
export const functionId = (template: Template, description: string): string =>
  onlyResource(template, 'AWS::Lambda::Function', (p) => p.Description === description)[0];

const refTarget = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null && 'Ref' in value ? String(value.Ref) : undefined;

/** API Gateway resource paths by logical id (`/pets`, `/pets/{petId}`); the root is `/`. */
export const apiResourcePaths = (template: Template): Map<string, string> => {
  const resources = new Map(entries(template, 'AWS::ApiGateway::Resource'));
  const pathOf = (id: string): string => {
    const resource = resources.get(id);
    if (!resource) return '';
    const parent = refTarget(resource.Properties.ParentId);
    return `${parent ? pathOf(parent) : ''}/${String(resource.Properties.PathPart)}`;
  };
  return new Map([...resources.keys()].map((id) => [id, pathOf(id)]));
};

/** Path of the resource a method hangs on (its ResourceId is a Ref, or the API root). */
export const methodPath = (template: Template, method: CfnResource): string => {
  const id = refTarget(method.Properties.ResourceId);
  return id ? (apiResourcePaths(template).get(id) ?? '?') : '/';
};

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** Every statement of the IAM policies attached to a role (by the role's logical id). */
export const statementsOfRole = (template: Template, roleId: string): Statement[] =>
  entries(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties.Roles as unknown[]).some((role) => refTarget(role) === roleId))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);

export const actionsOf = (statements: readonly Statement[]): string[] =>
  statements.flatMap((statement) => [statement.Action].flat());

/** Logical ids a value refers to (Ref / Fn::GetAtt), anywhere inside it; pseudo parameters left out. */
export const referencedIds = (value: unknown): Set<string> => {
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, inner] of Object.entries(node)) {
        if (key === 'Ref' && typeof inner === 'string') {
          if (!inner.startsWith('AWS::')) ids.add(inner);
        } else if (key === 'Fn::GetAtt' && Array.isArray(inner)) ids.add(String(inner[0]));
        else walk(inner);
      }
    }
  };
  walk(value);
  return ids;
};

/** The role (logical id) of the Lambda function with this logical id. */
export const roleOfFunction = (template: Template, functionLogicalId: string): string => {
  const fn = new Map(entries(template, 'AWS::Lambda::Function')).get(functionLogicalId);
  const [role] = [...referencedIds(fn?.Properties.Role)];
  if (!role) throw new Error(`No role for ${functionLogicalId}`);
  return role;
};

export interface DashboardMetric {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Record<string, string>;
  readonly options: Record<string, unknown>;
}

export interface DashboardWidget {
  readonly type: string;
  readonly title?: string;
  readonly metrics: DashboardMetric[];
}

/**
 * The widgets of the template's one dashboard, with CloudWatch's `"."` (same as the metric above)
 * expanded; references to resources read as `<ref>`.
 */
export const dashboardWidgets = (template: Template): DashboardWidget[] => {
  const [[, dashboard] = ['', { Type: '', Properties: {} }]] = entries(
    template,
    'AWS::CloudWatch::Dashboard',
  );
  const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const body = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('')) as {
    widgets: { type: string; properties: { title?: string; metrics?: unknown[][] } }[];
  };
  return body.widgets.map((widget) => {
    let previous: unknown[] = [];
    const metrics = (widget.properties.metrics ?? []).map((row) => {
      const last = row.at(-1);
      const options = typeof last === 'object' && last !== null ? (last as Record<string, unknown>) : {};
      const values = (options === last ? row.slice(0, -1) : row).map((value, index) =>
        value === '.' ? previous[index] : value,
      );
      previous = values;
      const [namespace, name, ...pairs] = values.map(String);
      const dimensions: Record<string, string> = {};
      for (let index = 0; index + 1 < pairs.length; index += 2)
        dimensions[pairs[index] as string] = pairs[index + 1] as string;
      return { namespace: namespace ?? '', name: name ?? '', dimensions, options };
    });
    return {
      type: widget.type,
      ...(widget.properties.title ? { title: widget.properties.title } : {}),
      metrics,
    };
  });
};

/** Logical id of the `live` alias of the Lambda function with this logical id. */
export const liveAliasOf = (template: Template, functionLogicalId: string): string =>
  onlyResource(
    template,
    'AWS::Lambda::Alias',
    (p) => p.Name === 'live' && refTarget(p.FunctionName) === functionLogicalId,
  )[0];

/** Logical ids of the alarms some CodeDeploy deployment group rolls back on. */
export const deploymentAlarmIds = (template: Template): Set<string> =>
  new Set(
    entries(template, 'AWS::CodeDeploy::DeploymentGroup').flatMap(([, group]) => [
      ...referencedIds((group.Properties.AlarmConfiguration as { Alarms?: unknown } | undefined)?.Alarms),
    ]),
  );
