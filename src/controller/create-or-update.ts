import type { CallOptions, ResourceClient } from "../client/index.ts";
import { deepEqual, isNotFound, type KubeObject } from "../core/index.ts";
import { mergePatchDiff } from "./merge-diff.ts";

/** What {@link createOrUpdate} and {@link createOrPatch} did. */
export type OperationResult = "created" | "updated" | "unchanged";

/** Brings the object to the state `mutate` describes; may be async. Must not change its name. */
export type Mutate<T> = (obj: T) => void | Promise<void>;

function identity(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

async function mutated<T extends KubeObject>(obj: T, mutate: Mutate<T>): Promise<T> {
  const before = identity(obj);
  await mutate(obj);
  if (identity(obj) !== before) {
    throw new TypeError(
      `mutate changed the object's name or namespace (${before} → ${identity(obj)}); it must not`,
    );
  }
  return obj;
}

function scopedTo<T extends KubeObject>(client: ResourceClient<T>, obj: T): ResourceClient<T> {
  const ns = obj.metadata?.namespace;
  return ns ? client.inNamespace(ns) : client;
}

/** The stored object named `name`, or `undefined` if there is none. */
async function getIfExists<T extends KubeObject>(
  c: ResourceClient<T>,
  name: string,
  options: CallOptions,
): Promise<T | undefined> {
  try {
    return await c.get(name, options);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError("createOrUpdate needs an object with metadata.name");
  return name;
}

/**
 * Reads the object named like `obj`; creates it from `mutate(obj)` if it does not exist, or
 * applies `mutate` to the stored copy and updates it if that changed anything (controller-
 * runtime's `CreateOrUpdate`). The update carries the read resourceVersion, so a concurrent change
 * surfaces as a 409 Conflict for the caller to retry (a reconcile requeues). Returns the
 * resulting object and what was done.
 */
export async function createOrUpdate<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: Mutate<T>,
  options: CallOptions = {},
): Promise<{ object: T; result: OperationResult }> {
  const c = scopedTo(client, obj);
  const existing = await getIfExists(c, nameOf(obj), options);
  if (existing === undefined) {
    return { object: await c.create(await mutated(obj, mutate), options), result: "created" };
  }
  const desired = await mutated(structuredClone(existing), mutate);
  if (deepEqual(existing, desired)) return { object: existing, result: "unchanged" };
  return { object: await c.update(desired, options), result: "updated" };
}

/**
 * Like {@link createOrUpdate}, but sends only what `mutate` changed, as a JSON merge patch
 * (controller-runtime's `CreateOrPatch`): fields other writers own are left alone. Changes to
 * `status` go to the status subresource when `statusSubresource` is set.
 */
export async function createOrPatch<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: Mutate<T>,
  options: CallOptions & { statusSubresource?: boolean } = {},
): Promise<{ object: T; result: OperationResult }> {
  const { statusSubresource = false, ...call } = options;
  const c = scopedTo(client, obj);
  const name = nameOf(obj);
  const existing = await getIfExists(c, name, call);
  if (existing === undefined) {
    const fresh = await mutated(obj, mutate);
    const status = (fresh as { status?: unknown }).status;
    let created = await c.create(fresh, call);
    if (statusSubresource && status !== undefined) {
      created = await c.patch(name, "merge", { status }, { ...call, subresource: "status" });
    }
    return { object: created, result: "created" };
  }
  const desired = await mutated(structuredClone(existing), mutate);
  const diff = mergePatchDiff(existing, desired) as Record<string, unknown> | undefined;
  if (diff === undefined) return { object: existing, result: "unchanged" };
  const { status, ...rest } = diff;
  let object = existing;
  const main = statusSubresource ? rest : diff;
  if (Object.keys(main).length > 0) object = await c.patch(name, "merge", main, call);
  if (statusSubresource && status !== undefined) {
    object = await c.patch(name, "merge", { status }, { ...call, subresource: "status" });
  }
  return { object, result: "updated" };
}
