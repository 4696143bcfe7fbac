/** Ready-made informer transforms (`transform` of SharedInformer and InformerFactory). */
import type { KubeObject } from "../core/index.ts";

/**
 * Drops `metadata.managedFields` (controller-runtime's `TransformStripManagedFields`). Every
 * object a server writes carries its field managers, often a third of its JSON; a controller
 * that does not read them keeps its cache that much smaller. Returns a copy of the object with
 * a copy of its metadata, or the object itself when it has none to drop.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const metadata = obj.metadata;
  if (metadata?.managedFields === undefined) return obj;
  const { managedFields: _, ...rest } = metadata;
  return { ...obj, metadata: rest };
}
