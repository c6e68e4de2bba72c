/** PersistentVolumes and PersistentVolumeClaims as upstream's printPersistentVolume(Claim) (printers.go, 1.29+ columns). */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, NAME, type Obj, WIDE, at, column, quantity, since, text } from './cells.js';

/** helper.GetAccessModesAsString: the short names in upstream's fixed order, duplicates once. */
const ACCESS_MODES: ReadonlyArray<[string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

function accessModes(modes: unknown): string {
  const present = new Set(Array.isArray(modes) ? modes : []);
  return ACCESS_MODES.filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** GetPersistentVolume(Claim)Class: the beta annotation wins over the field. */
function storageClass(object: Obj): string {
  const beta = at(object, 'metadata.annotations')['volume.beta.kubernetes.io/storage-class'];
  return typeof beta === 'string' ? beta : text(at(object, 'spec').storageClassName);
}

function phase(object: Obj): string {
  return at(object, 'metadata').deletionTimestamp ? 'Terminating' : text(at(object, 'status').phase);
}

const unset = (value: unknown) => (typeof value === 'string' ? value : '<unset>');

export const persistentVolumePrinter: TablePrinter = {
  columns: [
    NAME,
    column('Capacity', "capacity is the description of the persistent volume's resources and capacity."),
    column('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
    column('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    column('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    column('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    column('StorageClass', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pv'),
    column(
      'Reason',
      'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    ),
    AGE,
    column(
      'VolumeMode',
      'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      WIDE,
    ),
  ],
  cells(pv, now) {
    const spec = at(pv, 'spec');
    const claim = at(pv, 'spec.claimRef');
    return [
      text(at(pv, 'metadata').name),
      quantity(at(pv, 'spec.capacity').storage),
      accessModes(spec.accessModes),
      text(spec.persistentVolumeReclaimPolicy),
      phase(pv),
      spec.claimRef ? `${text(claim.namespace)}/${text(claim.name)}` : '',
      storageClass(pv),
      unset(spec.volumeAttributesClassName),
      text(at(pv, 'status').reason),
      since(at(pv, 'metadata').creationTimestamp, now),
      unset(spec.volumeMode),
    ];
  },
};

export const persistentVolumeClaimPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
    column('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    column('Capacity', 'capacity represents the actual resources of the underlying volume.'),
    column('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    column('StorageClass', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pvc'),
    AGE,
    column('VolumeMode', 'volumeMode defines what type of volume is required by the claim.', WIDE),
  ],
  cells(pvc, now) {
    const spec = at(pvc, 'spec');
    // Capacity and modes are the bound volume's: empty until the claim has one.
    const bound = text(spec.volumeName) !== '';
    return [
      text(at(pvc, 'metadata').name),
      phase(pvc),
      text(spec.volumeName),
      bound ? quantity(at(pvc, 'status.capacity').storage) : '',
      bound ? accessModes(at(pvc, 'status').accessModes) : '',
      storageClass(pvc),
      unset(spec.volumeAttributesClassName),
      since(at(pvc, 'metadata').creationTimestamp, now),
      unset(spec.volumeMode),
    ];
  },
};
