/**
 * For each User, a Namespace `user-<name>` owned by the User (so the garbage collector removes
 * it with the User), labelled with the user; a finalizer that removes the User's external state
 * (a folder under a data directory, standing in for an external system) before the User goes
 * away; status with the namespace, the observed generation and a Ready condition.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  addFinalizer,
  type ControllerSpec,
  controller,
  createOrUpdate,
  hasFinalizer,
  type Manager,
  removeFinalizer,
  setControllerReference,
} from "kontroller/controller";
import { isNotFound, toTime } from "kontroller/core";
import { type Namespace, namespaces } from "kontroller/resources";
import { User } from "./user.ts";

/** The finalizer that guards the User's external state. */
export const CLEANUP_FINALIZER = "example.com/cleanup";
/** The label naming a Namespace's User. */
export const USER_LABEL = "example.com/user";
/** The label carrying the user's display name, made label-safe. */
export const DISPLAY_NAME_LABEL = "example.com/display-name";

/** Options of {@link userNamespaceController}. */
export interface UserNamespaceOptions {
  /** Where each User's external state lives: `<dataDir>/<user>/profile.json`. */
  dataDir: string;
}

/** A label value for any display name: at most 63 of [a-z0-9-_.], alphanumeric at both ends. */
export function labelValue(displayName: string): string {
  const v = displayName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .slice(0, 63)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return v;
}

/** The namespace of a User. */
export function namespaceFor(user: string): string {
  return `user-${user}`;
}

/** The controller, ready for `manager.add()`. */
export function userNamespaceController(
  manager: Manager,
  options: UserNamespaceOptions,
): ControllerSpec<User> {
  const users = manager.client.resource(User);
  const nsClient = manager.client.resource(namespaces);
  const userLister = manager.factory.lister(User);
  const stateDir = (name: string) => join(options.dataDir, name);

  return controller({
    name: "user-namespace",
    for: User,
    owns: [namespaces],
    reconcile: async ({ name }, { log, signal }) => {
      let user: User;
      try {
        user = userLister.get(name);
      } catch (err) {
        // Gone: nothing to do (the garbage collector removes its namespace).
        if (isNotFound(err)) return;
        throw err;
      }

      if (user.metadata.deletionTimestamp) {
        if (hasFinalizer(user, CLEANUP_FINALIZER)) {
          await rm(stateDir(name), { recursive: true, force: true });
          log.info({ dir: stateDir(name) }, "removed external state");
          await removeFinalizer(users, user, CLEANUP_FINALIZER, { signal });
        }
        return;
      }
      if (!hasFinalizer(user, CLEANUP_FINALIZER))
        user = await addFinalizer(users, user, CLEANUP_FINALIZER, { signal });

      // The external system: a folder with the user's profile, replaced atomically (write, then
      // rename) so that a reader never sees half a file.
      await mkdir(stateDir(name), { recursive: true });
      const profile = join(stateDir(name), "profile.json");
      await writeFile(
        `${profile}.tmp`,
        `${JSON.stringify({ name, displayName: user.spec.displayName })}\n`,
      );
      await rename(`${profile}.tmp`, profile);

      const owner = user;
      const ns = namespaceFor(name);
      const { result } = await createOrUpdate<Namespace>(
        nsClient,
        { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
        (n) => {
          n.metadata ??= {};
          n.metadata.labels = {
            ...n.metadata.labels,
            [USER_LABEL]: name,
            [DISPLAY_NAME_LABEL]: labelValue(owner.spec.displayName),
          };
          setControllerReference(owner, n);
        },
        { signal },
      );
      if (result !== "unchanged") log.info({ namespace: ns, result }, "namespace reconciled");

      const generation = user.metadata.generation ?? 0;
      const ready = user.status?.conditions?.find((c) => c.type === "Ready");
      if (
        user.status?.namespace === ns &&
        user.status.observedGeneration === generation &&
        ready?.status === "True"
      )
        return;
      await users.patch(
        name,
        "merge",
        {
          status: {
            namespace: ns,
            observedGeneration: generation,
            conditions: [
              {
                type: "Ready",
                status: "True",
                reason: "NamespaceReady",
                message: `namespace ${ns} exists`,
                lastTransitionTime:
                  ready?.status === "True" ? ready.lastTransitionTime : toTime(Date.now()),
                observedGeneration: generation,
              },
            ],
          },
        },
        { subresource: "status", signal },
      );
    },
  });
}
