import { isIP } from "node:net";
import { errors, type KubeObject, type StatusCause } from "../../core/index.ts";
import { field } from "../registry/field-errors.ts";
import type { UnstoredHandler, UnstoredRequest } from "./unstored-create.ts";

/*
 * The subresources kube-apiserver hands to a kubelet (or, for proxies, to a pod's address):
 * `pods/{log,exec,attach,portforward,proxy}`, `nodes/proxy`, `services/proxy`. The embedded
 * server runs no kubelet, so no container ever runs. Each answers what kube-apiserver answers
 * without one — its options checked, the object looked up, a pod that is not on a node yet —
 * and otherwise says that there is no kubelet (503), never a 404 as for a path it does not know.
 */

type Json = Record<string, unknown>;

/** The 503 of a request that needs a kubelet: what could not be done, and why. */
export function noKubelet(what: string): never {
  throw errors.serviceUnavailable(
    `${what}: the embedded kontroller API server runs no kubelet, so no container runs and no node answers (use a cluster with nodes, such as kind, for logs, exec, attach, port-forward and proxies)`,
  );
}

async function getObject(u: UnstoredRequest, plural: string, name: string): Promise<KubeObject> {
  const served = u.ctx.registry.lookup("", "v1", plural);
  if (served === undefined) throw errors.notFound({ group: "", resource: plural }, name);
  return served.store.get(u.r.namespace, name);
}

function specOf(pod: KubeObject): Json {
  const spec = (pod as Json).spec;
  return typeof spec === "object" && spec !== null ? (spec as Json) : {};
}

function containerNames(pod: KubeObject, which: readonly string[]): string[] {
  const spec = specOf(pod);
  return which.flatMap((key) => {
    const list = spec[key];
    return Array.isArray(list) ? list.map((c) => String((c as Json)?.name ?? "")) : [];
  });
}

/**
 * The container a request is for, as kube picks it: the one named (400 if the pod has none of
 * that name), else the pod's only container (400 naming them all if there are several).
 */
function containerOf(pod: KubeObject, asked: string): string {
  const name = pod.metadata?.name ?? "";
  const all = containerNames(pod, ["initContainers", "containers", "ephemeralContainers"]);
  if (asked !== "") {
    if (!all.includes(asked))
      throw errors.badRequest(`container ${asked} is not valid for pod ${name}`);
    return asked;
  }
  const regular = containerNames(pod, ["containers"]);
  if (regular.length === 1) return regular[0]!;
  if (regular.length === 0) {
    throw errors.badRequest(`a container name must be specified for pod ${name}`);
  }
  throw errors.badRequest(
    `a container name must be specified for pod ${name}, choose one of: [${all.join(" ")}]`,
  );
}

function nodeOf(pod: KubeObject): string {
  const node = specOf(pod).nodeName;
  return typeof node === "string" ? node : "";
}

/** An integer query parameter, as kube's parameter decoding reads one (400 if not one). */
function intParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^[+-]?\d+$/.test(value)) {
    throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  return Number(value);
}

/** PodLogOptions from the query, checked as kube's `ValidatePodLogOptions` (422). */
function logOptions(u: UnstoredRequest): { container: string } {
  const q = u.query;
  const tailLines = intParam(q, "tailLines");
  const limitBytes = intParam(q, "limitBytes");
  const sinceSeconds = intParam(q, "sinceSeconds");
  const sinceTime = q.get("sinceTime");
  if (sinceTime !== null && Number.isNaN(Date.parse(sinceTime))) {
    throw errors.badRequest(
      `parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time`,
    );
  }
  const causes: StatusCause[] = [];
  if (tailLines !== undefined && tailLines < 0) {
    causes.push(field.invalid("tailLines", tailLines, "must be greater than or equal to 0"));
  }
  if (limitBytes !== undefined && limitBytes < 1) {
    causes.push(field.invalid("limitBytes", limitBytes, "must be greater than 0"));
  }
  if (sinceSeconds !== undefined && sinceTime !== null) {
    causes.push(
      field.forbidden("[]", "at most one of `sinceTime` or `sinceSeconds` may be specified"),
    );
  } else if (sinceSeconds !== undefined && sinceSeconds < 1) {
    causes.push(field.invalid("sinceSeconds", sinceSeconds, "must be greater than 0"));
  }
  if (q.has("stream")) causes.push(field.forbidden("stream", "may not be specified"));
  if (causes.length > 0) throw errors.invalid("PodLogOptions", "", u.r.name, causes);
  return { container: q.get("container") ?? "" };
}

/**
 * GET pods/{name}/log: a pod not on a node yet has no logs — 204 and no body, as kube answers;
 * one on a node would need its kubelet (503).
 */
export const podLog: UnstoredHandler = async (u) => {
  const { container: asked } = logOptions(u);
  const pod = await getObject(u, "pods", u.r.name);
  const container = containerOf(pod, asked);
  const node = nodeOf(pod);
  if (node === "") {
    u.res.statusCode = 204;
    u.res.end();
    return;
  }
  noKubelet(
    `cannot read the logs of container ${JSON.stringify(container)} of pod ${u.r.namespace}/${u.r.name} on node ${JSON.stringify(node)}`,
  );
};

/** pods/{name}/exec and attach (GET or POST): the container's streams, from its kubelet. */
function streamTo(action: "exec" | "attach"): UnstoredHandler {
  return async (u) => {
    const pod = await getObject(u, "pods", u.r.name);
    const container = containerOf(pod, u.query.get("container") ?? "");
    const node = nodeOf(pod);
    if (node === "") throw errors.badRequest(`pod ${u.r.name} does not have a host assigned`);
    const verb = action === "exec" ? "exec in" : "attach to";
    noKubelet(
      `cannot ${verb} container ${JSON.stringify(container)} of pod ${u.r.namespace}/${u.r.name} on node ${JSON.stringify(node)}`,
    );
  };
}

export const podExec = streamTo("exec");
export const podAttach = streamTo("attach");

/** pods/{name}/portforward (GET or POST): the pod's ports, through its kubelet. */
export const podPortForward: UnstoredHandler = async (u) => {
  for (const ports of u.query.getAll("ports")) {
    for (const port of ports.split(",")) {
      if (!/^\d+$/.test(port.trim())) {
        throw errors.badRequest(
          `cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(port.trim())}: invalid syntax`,
        );
      }
    }
  }
  const pod = await getObject(u, "pods", u.r.name);
  const node = nodeOf(pod);
  if (node === "") throw errors.badRequest(`pod ${u.r.name} does not have a host assigned`);
  noKubelet(
    `cannot forward ports of pod ${u.r.namespace}/${u.r.name} on node ${JSON.stringify(node)}`,
  );
};

/**
 * The name of a proxy path, which may carry a scheme and a port (`https:web:8443`, `web:80`),
 * as kube's `SplitSchemeNamePort` reads it; undefined when it cannot.
 */
export function proxyTargetName(id: string): string | undefined {
  const parts = id.split(":");
  let name: string;
  let scheme = "";
  if (parts.length === 1 || parts.length === 2) name = parts[0]!;
  else if (parts.length === 3) [scheme, name] = [parts[0]!, parts[1]!];
  else return undefined;
  if (name === "" || (scheme !== "" && scheme !== "http" && scheme !== "https")) return undefined;
  return name;
}

/** True for an address kube proxies to: a global unicast IP (not loopback, link-local…). */
function globalUnicast(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) {
    const [a, b] = ip.split(".").map(Number) as [number, number];
    return !(
      a === 0 ||
      a === 127 ||
      a >= 224 ||
      (a === 169 && b === 254) ||
      ip === "255.255.255.255"
    );
  }
  if (v === 6) {
    const lower = ip.toLowerCase();
    return !(
      lower === "::" ||
      lower === "::1" ||
      /^fe[89ab]/.test(lower) ||
      lower.startsWith("ff")
    );
  }
  return false;
}

/** Any method on pods/{name}/proxy[/path]: the pod's address, which no running pod has here. */
export const podProxy: UnstoredHandler = async (u) => {
  const name = proxyTargetName(u.r.name);
  if (name === undefined)
    throw errors.badRequest(`invalid pod request ${JSON.stringify(u.r.name)}`);
  const pod = await getObject(u, "pods", name);
  const status = ((pod as Json).status ?? {}) as { podIPs?: { ip?: string }[] };
  const ip = status.podIPs?.[0]?.ip ?? "";
  if (!globalUnicast(ip)) throw errors.badRequest("address not allowed");
  noKubelet(`cannot proxy to pod ${u.r.namespace}/${name} at ${ip}`);
};

/** Any method on nodes/{name}/proxy[/path]: the node's kubelet. */
export const nodeProxy: UnstoredHandler = async (u) => {
  const name = proxyTargetName(u.r.name);
  if (name === undefined)
    throw errors.badRequest(`invalid node request ${JSON.stringify(u.r.name)}`);
  await getObject(u, "nodes", name);
  noKubelet(`cannot proxy to the kubelet of node ${JSON.stringify(name)}`);
};

/** Any method on services/{name}/proxy[/path]: a ready pod behind the service. */
export const serviceProxy: UnstoredHandler = async (u) => {
  const name = proxyTargetName(u.r.name);
  if (name === undefined) {
    throw errors.badRequest(`invalid service request ${JSON.stringify(u.r.name)}`);
  }
  await getObject(u, "services", name);
  noKubelet(`cannot proxy to service ${u.r.namespace}/${name}: no pod behind it runs`);
};
