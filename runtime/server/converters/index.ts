import type { Converter } from './converter.js';
import { horizontalPodAutoscalerV1 } from './horizontal-pod-autoscaler-v1.js';

export type { Converter } from './converter.js';

/** The converters `{converter: <name>}` rules of the built-in kinds name. */
export const CONVERTERS: Readonly<Record<string, Converter>> = {
  'horizontal-pod-autoscaler-v1': horizontalPodAutoscalerV1,
};
