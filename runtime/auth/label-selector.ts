/**
 * Label selectors (matchLabels and matchExpressions), as ClusterRole aggregation uses them to pick
 * the ClusterRoles whose rules it gathers. An empty selector matches every object.
 */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
    readonly values?: readonly string[];
  }[];
}

export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>> = {}): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[e.key] as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[e.key] as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        // An operator this code does not know selects nothing, rather than everything.
        return false;
    }
  }
  return true;
}
