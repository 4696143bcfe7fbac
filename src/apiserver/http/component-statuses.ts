import {
  ApiError,
  errorMessage,
  errors,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from "../../core/index.ts";
import { EtcdStorage } from "../storage/etcd-storage.ts";
import type { Storage } from "../storage/storage.ts";
import { negotiateFor, type Output } from "./negotiate.ts";
import { sendJson } from "./respond.ts";
import { parseIncludeObject } from "./table.ts";
import type { UnstoredHandler, UnstoredRequest } from "./unstored-create.ts";
import { setWarnings } from "./write-options.ts";

/*
 * `componentstatuses` (v1 ComponentStatus, deprecated since 1.19 and still served): computed
 * on every request, never stored. kube-apiserver probes the scheduler, the controller manager
 * and each etcd server; the embedded server has neither of the first two (its control plane,
 * if any, runs as a client it does not know of), so it reports its storage alone: `etcd-0` for
 * etcd, `storage` for any other.
 */

const WARNING = "v1 ComponentStatus is deprecated in v1.19+";
const GR = { group: "", resource: "componentstatus" };

interface ComponentStatus {
  kind?: "ComponentStatus";
  apiVersion?: "v1";
  metadata: { name: string };
  conditions: { type: "Healthy"; status: "True" | "False"; message?: string; error?: string }[];
}

/** The storage's health, checked by reading its revision. */
async function componentStatuses(storage: Storage): Promise<ComponentStatus[]> {
  const name = storage instanceof EtcdStorage ? "etcd-0" : "storage";
  try {
    await storage.currentRevision();
    return [
      { metadata: { name }, conditions: [{ type: "Healthy", status: "True", message: "ok" }] },
    ];
  } catch (err) {
    return [
      {
        metadata: { name },
        conditions: [{ type: "Healthy", status: "False", error: errorMessage(err) }],
      },
    ];
  }
}

const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

const COLUMNS = [
  { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 },
  ...["Status", "Message", "Error"].map((c) => ({
    name: c,
    type: "string",
    format: "",
    description: `${c} of the component conditions`,
    priority: 0,
  })),
];

/** kube's printer of a component status: Healthy/Unhealthy, the message and the error. */
function row(c: ComponentStatus, includeObject: string): unknown {
  const healthy = c.conditions.find((x) => x.type === "Healthy");
  const status =
    healthy === undefined ? "Unknown" : healthy.status === "True" ? "Healthy" : "Unhealthy";
  const object =
    includeObject === "None"
      ? null
      : includeObject === "Object"
        ? { kind: "ComponentStatus", apiVersion: "v1", ...c }
        : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: c.metadata };
  return {
    cells: [c.metadata.name, status, healthy?.message ?? "", healthy?.error ?? ""],
    object,
  };
}

/** The answer's body, as the output asks: a Table, metadata only, or the objects. */
function bodyOf(u: UnstoredRequest, output: Output, items: ComponentStatus[], list: boolean) {
  if (output.kind === "table") {
    const includeObject = parseIncludeObject(u.query.get("includeObject"));
    return {
      kind: "Table",
      apiVersion: output.apiVersion,
      metadata: {},
      columnDefinitions: COLUMNS,
      rows: items.map((c) => row(c, includeObject)),
    };
  }
  if (output.kind === "metadata") {
    const meta = (c: ComponentStatus) => ({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: c.metadata,
    });
    if (!list) return meta(items[0]!);
    return {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: {},
      items: items.map(meta),
    };
  }
  if (!list) return { kind: "ComponentStatus", apiVersion: "v1", ...items[0] };
  return { kind: "ComponentStatusList", apiVersion: "v1", metadata: {}, items };
}

function send(u: UnstoredRequest, output: Output, items: ComponentStatus[], list: boolean): void {
  const body = bodyOf(u, output, items, list);
  setWarnings(u.res, [WARNING]);
  sendJson(u.res, 200, body);
}

function watchNotSupported(u: UnstoredRequest): void {
  const w = u.query.get("watch");
  if (w !== null && w !== "false" && w !== "0") {
    setWarnings(u.res, [WARNING]);
    throw ApiError.of(
      "MethodNotAllowed",
      'watch is not supported on resources of kind "componentstatuses"',
      { kind: "componentstatuses" },
    );
  }
}

/** GET componentstatuses: every component, filtered by the label and field selectors. */
export const listComponentStatuses: UnstoredHandler = async (u) => {
  watchNotSupported(u);
  const output = negotiateFor(u.res, u.req.headers.accept, true, true);
  let items = await componentStatuses(u.ctx.registry.storage);
  try {
    const labels = parseLabelSelector(u.query.get("labelSelector") ?? "");
    const fields = parseFieldSelector(u.query.get("fieldSelector") ?? "");
    items = items.filter(
      (c) => labels.matches({}) && fields.matches({ "metadata.name": c.metadata.name }),
    );
  } catch (err) {
    if (err instanceof SelectorError) throw errors.badRequest(err.message);
    throw err;
  }
  send(u, output, items, true);
};

/** GET componentstatuses/{name}. */
export const getComponentStatus: UnstoredHandler = async (u) => {
  const output = negotiateFor(u.res, u.req.headers.accept, true, true);
  const found = (await componentStatuses(u.ctx.registry.storage)).find(
    (c) => c.metadata.name === u.r.name,
  );
  if (found === undefined) {
    setWarnings(u.res, [WARNING]);
    throw errors.notFound(GR, u.r.name);
  }
  send(u, output, [found], false);
};
