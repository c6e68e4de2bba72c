/**
 * The built-in kinds' Table printers, by the name a kind declares (`printer:` in `x-svc-resource`):
 * columns and cells as upstream's pkg/printers/internalversion/printers.go computes them.
 */
import type { TablePrinter } from '../../codec/index.js';
import { eventPrinter, nodePrinter } from './cluster.js';
import { configMapPrinter, namespacePrinter, secretPrinter, serviceAccountPrinter } from './config.js';
import { podPrinter } from './pods.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.js';
import { leasePrinter, priorityClassPrinter, resourceQuotaPrinter, storageClassPrinter } from './settings.js';
import { endpointsPrinter, ingressPrinter, servicePrinter } from './services.js';
import { horizontalPodAutoscalerPrinter } from './autoscaling.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from './volumes.js';
import {
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  jobPrinter,
  podDisruptionBudgetPrinter,
  replicaSetPrinter,
  replicationControllerPrinter,
  statefulSetPrinter,
} from './workloads.js';

export const builtinPrinters: Readonly<Record<string, TablePrinter>> = {
  pod: podPrinter,
  service: servicePrinter,
  endpoints: endpointsPrinter,
  configmap: configMapPrinter,
  secret: secretPrinter,
  serviceaccount: serviceAccountPrinter,
  namespace: namespacePrinter,
  node: nodePrinter,
  event: eventPrinter,
  deployment: deploymentPrinter,
  replicaset: replicaSetPrinter,
  statefulset: statefulSetPrinter,
  daemonset: daemonSetPrinter,
  job: jobPrinter,
  cronjob: cronJobPrinter,
  rolebinding: roleBindingPrinter,
  clusterrolebinding: clusterRoleBindingPrinter,
  lease: leasePrinter,
  replicationcontroller: replicationControllerPrinter,
  poddisruptionbudget: podDisruptionBudgetPrinter,
  storageclass: storageClassPrinter,
  ingress: ingressPrinter,
  horizontalpodautoscaler: horizontalPodAutoscalerPrinter,
  persistentvolume: persistentVolumePrinter,
  persistentvolumeclaim: persistentVolumeClaimPrinter,
  priorityclass: priorityClassPrinter,
  resourcequota: resourceQuotaPrinter,
};
