/** ConfigMaps, Secrets, ServiceAccounts and Namespaces as upstream's printers (1.30). */
import type { TablePrinter } from '../../codec/index.js';
import { isObject } from '../../json/index.js';
import { AGE, INTEGER, NAME, at, column, since, text } from './cells.js';

const size = (v: unknown) => (isObject(v) ? Object.keys(v).length : Array.isArray(v) ? v.length : 0);

export const configMapPrinter: TablePrinter = {
  columns: [NAME, column('Data', 'Data contains the configuration data.', INTEGER), AGE],
  cells: (cm, now) => [
    text(at(cm, 'metadata').name),
    size(cm.data) + size(cm.binaryData),
    since(at(cm, 'metadata').creationTimestamp, now),
  ],
};

export const secretPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Type', 'Used to facilitate programmatic handling of secret data.'),
    column('Data', 'Data contains the secret data.', INTEGER),
    AGE,
  ],
  cells: (s, now) => [text(at(s, 'metadata').name), text(s.type), size(s.data), since(at(s, 'metadata').creationTimestamp, now)],
};

export const serviceAccountPrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      'Secrets',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
      INTEGER,
    ),
    AGE,
  ],
  cells: (sa, now) => [text(at(sa, 'metadata').name), size(sa.secrets), since(at(sa, 'metadata').creationTimestamp, now)],
};

export const namespacePrinter: TablePrinter = {
  columns: [NAME, column('Status', 'The status of the namespace'), AGE],
  cells: (ns, now) => [text(at(ns, 'metadata').name), text(at(ns, 'status').phase), since(at(ns, 'metadata').creationTimestamp, now)],
};
