/** Leases and StorageClasses as upstream's printLease and printStorageClass (1.30). */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, NAME, at, column, since, text } from './cells.js';

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
