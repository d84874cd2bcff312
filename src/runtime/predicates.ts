// Update filters for Controller.watchPrimary and watchMapped, as controller-runtime's predicates: which
// changes of a watched object are worth a reconcile. A controller's own status writes bump neither the
// generation nor the deletion timestamp, so these filters keep them from waking it again.

/** The metadata these filters read (every decoded kind has it). */
interface Versioned {
  readonly metadata: { readonly generation?: number; readonly deletionTimestamp?: string };
}

/** The spec changed: the API server bumped `metadata.generation` (a status or label write does not). */
export function generationChanged(before: Versioned, after: Versioned): boolean {
  return before.metadata.generation !== after.metadata.generation;
}

/**
 * The spec changed, the object's deletion started, or the informer's resync handed the same object
 * again (the periodic refresh of whatever the object's status reports from elsewhere).
 */
export function generationOrDeletionChanged(before: Versioned, after: Versioned): boolean {
  return (
    before === after ||
    generationChanged(before, after) ||
    before.metadata.deletionTimestamp !== after.metadata.deletionTimestamp
  );
}
