/**
 * Deployments, ReplicaSets, ReplicationControllers, StatefulSets, DaemonSets, Jobs, CronJobs and
 * PodDisruptionBudgets as upstream's printers (1.30).
 */
import { type TablePrinter, humanDuration } from '../../codec/index.js';
import {
  AGE,
  INTEGER,
  NAME,
  TEMPLATE_COLUMNS,
  WIDE,
  at,
  column,
  containerCells,
  formatLabels,
  formatSelector,
  int,
  list,
  since,
  text,
} from './cells.js';

const SELECTOR = column('Selector', 'Label selector for pods.', WIDE);
const name = (o: Record<string, unknown>) => text(at(o, 'metadata').name);
const age = (o: Record<string, unknown>, now: Date) => since(at(o, 'metadata').creationTimestamp, now);
const template = (o: Record<string, unknown>) => containerCells(at(o, 'spec.template.spec'));

export const deploymentPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Ready', 'Number of the pod with ready state'),
    column('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    AGE,
    ...TEMPLATE_COLUMNS,
    SELECTOR,
  ],
  cells: (d, now) => {
    const status = at(d, 'status');
    return [
      name(d),
      `${int(status.readyReplicas)}/${int(at(d, 'spec').replicas)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      age(d, now),
      ...template(d),
      formatSelector(at(d, 'spec').selector),
    ];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Desired', 'Replicas is the number of desired replicas.', INTEGER),
    column('Current', 'Replicas is the most recently observed number of replicas.', INTEGER),
    column('Ready', 'readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.', INTEGER),
    AGE,
    ...TEMPLATE_COLUMNS,
    SELECTOR,
  ],
  cells: (rs, now) => [
    name(rs),
    int(at(rs, 'spec').replicas),
    int(at(rs, 'status').replicas),
    int(at(rs, 'status').readyReplicas),
    age(rs, now),
    ...template(rs),
    formatSelector(at(rs, 'spec').selector),
  ],
};

/** printReplicationController: a ReplicaSet's columns and cells, with a map selector (labels.FormatLabels). */
export const replicationControllerPrinter: TablePrinter = {
  columns: [
    ...replicaSetPrinter.columns.slice(0, -1),
    column('Selector', 'Selector is a label query over pods that should match the Replicas count.', WIDE),
  ],
  cells: (rc, now) => [...replicaSetPrinter.cells(rc, now).slice(0, -1), formatLabels(at(rc, 'spec').selector)],
};

/** printPodDisruptionBudget: the bounds as given (`N/A` when unset) and the disruptions allowed now. */
export const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      'Min Available',
      'The minimum number of pods that must be available simultaneously.  This can be either an integer or percentage.',
    ),
    column(
      'Max Unavailable',
      'The maximum number of pods that may be unavailable simultaneously.  This can be either an integer or percentage.',
    ),
    column('Allowed Disruptions', 'Number of pod disruptions that are currently allowed.', INTEGER),
    AGE,
  ],
  cells(pdb, now) {
    const spec = at(pdb, 'spec');
    const bound = (v: unknown) => (v === undefined || v === null ? 'N/A' : String(v));
    return [name(pdb), bound(spec.minAvailable), bound(spec.maxUnavailable), int(at(pdb, 'status').disruptionsAllowed), age(pdb, now)];
  },
};

export const statefulSetPrinter: TablePrinter = {
  columns: [NAME, column('Ready', 'Number of the pod with ready state'), AGE, ...TEMPLATE_COLUMNS],
  cells: (s, now) => [name(s), `${int(at(s, 'status').readyReplicas)}/${int(at(s, 'spec').replicas)}`, age(s, now), ...template(s)],
};

export const daemonSetPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Desired', 'The total number of nodes that should be running the daemon pod.', INTEGER),
    column('Current', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.', INTEGER),
    column(
      'Ready',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
      INTEGER,
    ),
    column('Up-to-date', 'The total number of nodes that are running updated daemon pod', INTEGER),
    column(
      'Available',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      INTEGER,
    ),
    column('Node Selector', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    AGE,
    ...TEMPLATE_COLUMNS,
    SELECTOR,
  ],
  cells: (ds, now) => {
    const status = at(ds, 'status');
    return [
      name(ds),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(at(ds, 'spec.template.spec').nodeSelector),
      age(ds, now),
      ...template(ds),
      formatSelector(at(ds, 'spec').selector),
    ];
  },
};

export const jobPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Completions', 'The completion status of the job'),
    column('Duration', 'Time required to complete the job.'),
    AGE,
    ...TEMPLATE_COLUMNS,
    SELECTOR,
  ],
  cells: (job, now) => {
    const spec = at(job, 'spec');
    const status = at(job, 'status');
    const succeeded = int(status.succeeded);
    const parallelism = typeof spec.parallelism === 'number' ? int(spec.parallelism) : 0;
    const completions =
      typeof spec.completions === 'number'
        ? `${succeeded}/${int(spec.completions)}`
        : parallelism > 1
          ? `${succeeded}/1 of ${parallelism}`
          : `${succeeded}/1`;
    const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : Number.NaN;
    const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now.getTime();
    return [
      name(job),
      completions,
      Number.isNaN(start) ? '' : humanDuration(end - start),
      age(job, now),
      ...template(job),
      formatSelector(spec.selector),
    ];
  },
};

export const cronJobPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Schedule', 'The schedule in Cron format.'),
    column('Timezone', 'The time zone name for the given schedule.'),
    column('Suspend', 'This flag tells the controller to suspend subsequent executions.', { type: 'boolean' }),
    column('Active', 'A list of pointers to currently running jobs.', INTEGER),
    column('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
    AGE,
    ...TEMPLATE_COLUMNS,
    SELECTOR,
  ],
  cells: (cj, now) => {
    const spec = at(cj, 'spec');
    const status = at(cj, 'status');
    return [
      name(cj),
      text(spec.schedule),
      typeof spec.timeZone === 'string' ? spec.timeZone : '<none>',
      typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>',
      list(status.active).length,
      typeof status.lastScheduleTime === 'string' ? since(status.lastScheduleTime, now) : '<none>',
      age(cj, now),
      ...containerCells(at(cj, 'spec.jobTemplate.spec.template.spec')),
      formatSelector(at(cj, 'spec.jobTemplate.spec').selector),
    ];
  },
};
