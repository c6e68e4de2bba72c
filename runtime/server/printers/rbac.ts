/** RoleBindings and ClusterRoleBindings as upstream's printRoleBinding and printClusterRoleBinding (1.30). */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, NAME, WIDE, at, column, list, since, text } from './cells.js';

/** rbac.SubjectsStrings: users, groups and service accounts (`namespace/name`), each joined by `, `. */
function subjects(binding: Record<string, unknown>): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const accounts: string[] = [];
  for (const s of list(binding.subjects)) {
    const name = text(s.name);
    if (s.kind === 'User') users.push(name);
    else if (s.kind === 'Group') groups.push(name);
    else if (s.kind === 'ServiceAccount') accounts.push(text(s.namespace) ? `${text(s.namespace)}/${name}` : name);
  }
  return [users.join(', '), groups.join(', '), accounts.join(', ')];
}

export const roleBindingPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Role', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
    AGE,
    column('Users', 'Users in the roleBinding', WIDE),
    column('Groups', 'Groups in the roleBinding', WIDE),
    column('ServiceAccounts', 'ServiceAccounts in the roleBinding', WIDE),
  ],
  cells(binding, now) {
    const ref = at(binding, 'roleRef');
    return [
      text(at(binding, 'metadata').name),
      `${text(ref.kind)}/${text(ref.name)}`,
      since(at(binding, 'metadata').creationTimestamp, now),
      ...subjects(binding),
    ];
  },
};

export const clusterRoleBindingPrinter: TablePrinter = {
  ...roleBindingPrinter,
  columns: [
    NAME,
    column('Role', 'RoleRef can only reference a ClusterRole in the global namespace.'),
    ...roleBindingPrinter.columns.slice(2),
  ],
};
