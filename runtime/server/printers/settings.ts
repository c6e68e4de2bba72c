/** Leases, StorageClasses, PriorityClasses and ResourceQuotas as upstream's printers. */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, INTEGER, NAME, at, column, int, quantity, since, text } from './cells.js';

export const leasePrinter: TablePrinter = {
  columns: [NAME, column('Holder', 'holderIdentity contains the identity of the holder of a current lease.'), AGE],
  cells: (lease, now) => [
    text(at(lease, 'metadata').name),
    text(at(lease, 'spec').holderIdentity),
    since(at(lease, 'metadata').creationTimestamp, now),
  ],
};

/** storageutil.IsDefaultAnnotation: the GA annotation, or the beta one. */
const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

export const storageClassPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Provisioner', 'provisioner indicates the type of the provisioner.'),
    column(
      'ReclaimPolicy',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
    ),
    column(
      'VolumeBindingMode',
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
    ),
    column('AllowVolumeExpansion', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    AGE,
  ],
  cells(sc, now) {
    const meta = at(sc, 'metadata');
    const annotations = at(sc, 'metadata.annotations');
    const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
    return [
      `${text(meta.name)}${isDefault ? ' (default)' : ''}`,
      text(sc.provisioner),
      text(sc.reclaimPolicy) || 'Delete',
      text(sc.volumeBindingMode) || 'Immediate',
      sc.allowVolumeExpansion === true,
      since(meta.creationTimestamp, now),
    ];
  },
};

export const priorityClassPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Value', 'value represents the integer value of this priority class.', INTEGER),
    column(
      'Global-Default',
      'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
      { type: 'boolean' },
    ),
    AGE,
    column('PreemptionPolicy', 'preemptionPolicy is the Policy for preempting pods with lower priority.'),
  ],
  cells: (pc, now) => [
    text(at(pc, 'metadata').name),
    int(pc.value),
    pc.globalDefault === true,
    since(at(pc, 'metadata').creationTimestamp, now),
    text(pc.preemptionPolicy),
  ],
};

export const resourceQuotaPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    AGE,
  ],
  cells(quota, now) {
    const hard = at(quota, 'status.hard');
    const used = at(quota, 'status.used');
    const requests: string[] = [];
    const limits: string[] = [];
    // Every resource of status.hard as `name: used/hard`, sorted; `limits.*` in the Limit column.
    for (const name of Object.keys(hard).sort()) {
      const cell = `${name}: ${quantity(used[name])}/${quantity(hard[name])}`;
      (name.split('.').length > 1 && name.startsWith('limits.') ? limits : requests).push(cell);
    }
    return [text(at(quota, 'metadata').name), requests.join(', '), limits.join(', '), since(at(quota, 'metadata').creationTimestamp, now)];
  },
};
