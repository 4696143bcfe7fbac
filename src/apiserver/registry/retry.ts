import { errors, type GroupResource } from "../../core/index.ts";
import { isStorageError } from "../storage/storage-error.ts";

/** How often a write that lost a compare-and-swap race is tried again. */
export const MAX_UPDATE_ATTEMPTS = 16;

/**
 * Runs `attempt` — read the object, work out what to write, compare-and-swap it — again while
 * its write loses to a concurrent one (a storage `Conflict`), up to {@link MAX_UPDATE_ATTEMPTS}
 * more times; kube's `GuaranteedUpdate` loop. Storage errors that end it become the API's:
 * NotFound is 404, a Conflict still there after the last attempt is 409 (stale
 * resourceVersion), for object `name` of `gr`.
 */
export async function retryOnConflict<T>(
  gr: GroupResource,
  name: string,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (isStorageError(err, "Conflict") && n < MAX_UPDATE_ATTEMPTS) continue;
      if (isStorageError(err, "NotFound")) throw errors.notFound(gr, name);
      if (isStorageError(err, "Conflict")) throw errors.staleResourceVersion(gr, name);
      throw err;
    }
  }
}
