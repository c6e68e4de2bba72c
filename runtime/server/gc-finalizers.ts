/** The finalizers through which a delete's propagation policy reaches the garbage collector (upstream's metav1 names). */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';
