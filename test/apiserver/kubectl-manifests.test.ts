/**
 * The install manifests of widely used projects (../shared/manifests, read there: RBAC, CRDs,
 * Deployments, Services, Jobs, an IngressClass, a webhook configuration…) applied with
 * `kubectl apply` and `kubectl apply --server-side`, then read back object by object: each is
 * there, holding every field the manifest gave it.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { kubectlRig } from "./kubectl-rig.ts";

const DIR = new URL("../../../shared/manifests/", import.meta.url);

/** The manifests, and whether client-side apply can take them (kube refuses a last-applied
 * annotation over 256 KiB, which prometheus-operator's largest CRDs would need). */
const MANIFESTS = [
  { file: "kube-state-metrics-standard.yaml", clientSide: true },
  { file: "ingress-nginx-cloud-deploy.yaml", clientSide: true },
  { file: "prometheus-operator-bundle.yaml", clientSide: false },
] as const;

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

function objectsOf(file: string): Manifest[] {
  const text = readFileSync(new URL(file, DIR), "utf8");
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => o !== null);
}

/**
 * Where `given` is not found in `actual`: every field of the manifest must be in the object read
 * back, with the same value (maps compared field by field, lists item by item; a number
 * given where kube keeps a string, `cpu: 1` → "1", compares as its text).
 */
function missing(given: unknown, actual: unknown, path: string): string[] {
  // A null field is no field (`data:` with nothing under it): kube stores none. Nor does it keep
  // a zero value of an omitempty field (`minReadySeconds: 0`, `hostNetwork: false`).
  if (given === null) return [];
  if (actual === undefined && (given === 0 || given === false || given === "")) return [];
  if (given !== null && typeof given === "object" && !Array.isArray(given)) {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [path];
    return Object.entries(given).flatMap(([k, v]) =>
      missing(v, (actual as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  if (Array.isArray(given)) {
    if (!Array.isArray(actual) || actual.length !== given.length) return [path];
    return given.flatMap((v, i) => missing(v, actual[i], `${path}[${i}]`));
  }
  return given === actual || String(given) === String(actual) ? [] : [path];
}

const absent = existsSync(DIR)
  ? false
  : `no manifests at ${DIR.pathname} (../shared/manifests, beside the repository)`;

// Client-side and server-side apply each on a server of their own: on one server, a server-side
// apply after a client-side one conflicts (as kube says) on the fields defaulting filled in.
for (const serverSide of [false, true]) {
  const how = serverSide ? "kubectl apply --server-side" : "kubectl apply";
  describe(`${how} of real install manifests`, { skip: absent }, () => {
    const rig = kubectlRig("kubectl-manifests", { controllers: false });
    for (const { file, clientSide } of MANIFESTS) {
      if (!serverSide && !clientSide) continue;
      it(`applies ${file} and reads every object back`, async () => {
        const objects = objectsOf(file);
        const args = ["apply", "-f", new URL(file, DIR).pathname];
        if (serverSide) args.push("--server-side");
        const out = await rig.kubectl(...args);
        assert.equal(out.trim().split("\n").length, objects.length, out);
        for (const o of objects) {
          const ns = o.metadata.namespace ? ["-n", o.metadata.namespace] : [];
          // kind.version.group (kubectl's fully qualified form); a core kind by its name alone.
          const [group, version] = o.apiVersion.split("/");
          const kind = o.kind.toLowerCase();
          const resource = version === undefined ? kind : `${kind}.${version}.${group}`;
          const what = `${o.kind} ${o.apiVersion} ${o.metadata.name}`;
          const read = JSON.parse(
            await rig.kubectl("get", `${resource}/${o.metadata.name}`, ...ns, "-o", "json"),
          );
          const { metadata, ...rest } = o;
          assert.deepEqual(missing(rest, read, ""), [], what);
          assert.deepEqual(missing(metadata, read.metadata, "metadata"), [], what);
        }
      });
    }
  });
}
