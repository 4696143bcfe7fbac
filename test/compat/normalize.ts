/**
 * Normalization: what legitimately differs between two correct servers given the same requests,
 * replaced by a placeholder so that the rest compares. Each rule is one line of the walk below;
 * anything not named here is compared as received. Both backends use the same namespace and
 * object names (each is its own server), so no name is rewritten besides generated ones.
 */

/** An RFC 3339 time, with or without fractional seconds (Time and MicroTime). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** A UUID, as servers make for uids (and copy into labels, selectors and owner references). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The `metadata.generateName` of the objects the suite creates with one. */
export const GENERATE_NAME = "compat-gen-";
/** A name kube-apiserver (and the embedded server) made from it: five random characters. */
const GENERATED = new RegExp(`${GENERATE_NAME}[a-z0-9]{5}`, "g");
/** An IPv4 or IPv6 address. */
const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+)$/;

/** The reply's body, with every server-specific value replaced by a placeholder. */
export function normalize(value: unknown): unknown {
  return walk(value, "");
}

function walk(value: unknown, key: string): unknown {
  if (typeof value === "string") return normalizeString(value, key);
  if (typeof value === "number") {
    // Node ports are allocated by each server from its own range.
    return key === "nodePort" ? "<node-port>" : value;
  }
  if (Array.isArray(value)) {
    // Cluster IPs are allocated by each server from its own range.
    if (key === "clusterIPs") return value.map((ip) => normalizeString(ip, "clusterIP"));
    const items = value.map((item) => walk(item, ""));
    // Field managers are ordered by their times, which differ: order them by who and how.
    return key === "managedFields" ? items.sort(byManager) : items;
  }
  if (typeof value !== "object" || value === null) return value;
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) out[k] = walk(v, k);
  if (object.kind === "Table") tableCells(out);
  return out;
}

function byManager(a: unknown, b: unknown): number {
  const key = (entry: unknown) => {
    const e = entry as { manager?: unknown; operation?: unknown; subresource?: unknown };
    return `${e.manager}\n${e.operation}\n${e.subresource ?? ""}`;
  };
  return key(a).localeCompare(key(b));
}

function normalizeString(value: unknown, key: string): unknown {
  if (typeof value !== "string" || value === "") return value;
  // Every timestamp (creation, managedFields[].time, conditions, events) is the server's clock.
  if (RFC3339.test(value)) return "<time>";
  // A name made from the suite's generateName ends in a random suffix, wherever it is quoted.
  if (value.includes(GENERATE_NAME)) return value.replace(GENERATED, `${GENERATE_NAME}<suffix>`);
  // Uids are random; labels and selectors that copy one (a Job's controller-uid) follow, also
  // where a Table prints the selector as one string.
  if (UUID.test(value)) return value.replace(UUID, "<uid>");
  // A resourceVersion is the server's storage revision, opaque to clients.
  if (key === "resourceVersion") return "<resourceVersion>";
  // A continue token is opaque and encodes the server's revision.
  if (key === "continue") return "<continue>";
  if (key === "clusterIP" && IP.test(value)) return "<cluster-ip>";
  // Discovery's serverAddressByClientCIDRs names the server's own host and port.
  if (key === "serverAddress") return "<server-address>";
  return value;
}

/**
 * A Table's Age column is the time since creation, read from each server's clock; its Cluster-IP
 * column prints the IP each server allocated.
 */
function tableCells(table: Record<string, unknown>): void {
  const columns = table.columnDefinitions;
  const rows = table.rows;
  if (!Array.isArray(columns) || !Array.isArray(rows)) return;
  const names = columns.map((c) => (c as { name?: unknown } | null)?.name);
  for (const row of rows) {
    const cells = (row as { cells?: unknown }).cells;
    if (!Array.isArray(cells)) continue;
    cells.forEach((cell, i) => {
      if (names[i] === "Age") cells[i] = "<age>";
      else if (names[i] === "Cluster-IP" && IP.test(String(cell))) cells[i] = "<cluster-ip>";
    });
  }
}

/**
 * The media type of a Content-Type header, lower-cased: its parameters (a charset on JSON) change
 * nothing for a client.
 */
export function mediaType(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}
