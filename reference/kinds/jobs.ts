import type { JsonApiObject } from '../../runtime/api/index.js';
import type { KindHook } from '../../runtime/server/index.js';

/** The labels upstream's job strategy puts on a job's pod template (both the legacy and the batch.kubernetes.io form, as 1.30). */
const NAME_LABELS = ['job-name', 'batch.kubernetes.io/job-name'];
const UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];

/**
 * A new job without `manualSelector: true` selects its own pods by its uid, as upstream's job
 * strategy (generateSelector): the template gets the job-name and controller-uid labels it does not
 * name itself, and the selector matches `batch.kubernetes.io/controller-uid`. Declared by the job
 * kind as the hook `job-selector`.
 */
export function jobSelector(): KindHook {
  return { prepareCreate: generateSelector };
}

type Labels = Record<string, string>;

function generateSelector(job: JsonApiObject): void {
  const spec = (job.spec ??= {}) as {
    manualSelector?: boolean;
    template?: { metadata?: { labels?: Labels } };
    selector?: { matchLabels?: Labels };
  };
  if (spec.manualSelector === true) return;
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  const template = (spec.template ??= {});
  const labels = ((template.metadata ??= {}).labels ??= {});
  for (const key of NAME_LABELS) labels[key] ??= name;
  for (const key of UID_LABELS) labels[key] ??= uid;
  const matchLabels = ((spec.selector ??= {}).matchLabels ??= {});
  matchLabels['batch.kubernetes.io/controller-uid'] ??= uid;
}
