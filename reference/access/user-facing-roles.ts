/**
 * Upstream's user-facing ClusterRoles (bootstrap policy, `kubectl create rolebinding
 * --clusterrole=view`): `admin`, `edit` and `view` gather their rules by label from the
 * `system:aggregate-to-*` roles (and from any role a user labels so), `edit` joins `admin`,
 * and `view` joins `edit`. The rules are upstream's, with the spec's groups under the server's suffix.
 */
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL = [...WRITE.slice(0, 3), 'get', 'list', 'patch', 'update', 'watch'];

/** One role, for the bootstrap policy to write as a ClusterRole. */
export interface UserFacingRole {
  name: string;
  /** Aggregation labels this role carries (it joins the roles selecting them). */
  joins: string[];
  /** The label whose roles it gathers (an aggregated role has no rules of its own). */
  gathers?: string;
  rules?: Rule[];
}

/** `served(specGroup)` names a spec group as the server serves it; `rbac` is the served RBAC group. */
export function userFacingRoles(rbac: string, served: (specGroup: string) => string): UserFacingRole[] {
  const label = (role: 'admin' | 'edit' | 'view') => `${rbac}/aggregate-to-${role}`;
  const networking = served('networking.svc.io');
  const rule = (apiGroups: string[], resources: string[], verbs: string[]): Rule => ({ apiGroups, resources, verbs });
  return [
    { name: 'admin', joins: [], gathers: label('admin') },
    { name: 'edit', joins: [label('admin')], gathers: label('edit') },
    { name: 'view', joins: [label('edit')], gathers: label('view') },
    {
      name: 'system:aggregate-to-admin',
      joins: [label('admin')],
      rules: [
        rule([served('authorization.svc.io')], ['localsubjectaccessreviews'], ['create']),
        rule([rbac], ['rolebindings', 'roles'], ALL),
      ],
    },
    {
      name: 'system:aggregate-to-edit',
      joins: [label('edit')],
      rules: [
        rule([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
        rule([''], ['serviceaccounts'], ['impersonate']),
        rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
        rule([''], ['pods/eviction'], ['create']),
        rule(
          [''],
          [
            'configmaps',
            'events',
            'persistentvolumeclaims',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'secrets',
            'serviceaccounts',
            'services',
            'services/proxy',
          ],
          WRITE,
        ),
        rule([''], ['serviceaccounts/token'], ['create']),
        rule(
          ['apps'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'replicasets',
            'replicasets/scale',
            'statefulsets',
            'statefulsets/scale',
          ],
          WRITE,
        ),
        rule(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
        rule(['batch'], ['cronjobs', 'jobs'], WRITE),
        rule(
          ['extensions'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'ingresses',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicationcontrollers/scale',
          ],
          WRITE,
        ),
        rule(['policy'], ['poddisruptionbudgets'], WRITE),
        rule([networking], ['ingresses', 'networkpolicies'], WRITE),
        rule([served('coordination.svc.io')], ['leases'], ALL),
      ],
    },
    {
      name: 'system:aggregate-to-view',
      joins: [label('view')],
      rules: [
        rule(
          [''],
          [
            'configmaps',
            'endpoints',
            'persistentvolumeclaims',
            'persistentvolumeclaims/status',
            'pods',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'serviceaccounts',
            'services',
            'services/status',
          ],
          READ,
        ),
        rule(
          [''],
          [
            'bindings',
            'events',
            'limitranges',
            'namespaces/status',
            'pods/log',
            'pods/status',
            'replicationcontrollers/status',
            'resourcequotas',
            'resourcequotas/status',
          ],
          READ,
        ),
        rule([''], ['namespaces'], READ),
        rule([served('discovery.svc.io')], ['endpointslices'], READ),
        rule(
          ['apps'],
          [
            'controllerrevisions',
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'statefulsets',
            'statefulsets/scale',
            'statefulsets/status',
          ],
          READ,
        ),
        rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
        rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
        rule(
          ['extensions'],
          [
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'ingresses',
            'ingresses/status',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'replicationcontrollers/scale',
          ],
          READ,
        ),
        rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
        rule([networking], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
      ],
    },
  ];
}
