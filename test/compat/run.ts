/**
 * `npm run test:compat`: the compatibility suite. Starts a real kube-apiserver (from the binary
 * `startKubeApiServer` finds) and the embedded server, runs every scenario against both (the same
 * requests in the same order), normalizes and compares the replies, prints each difference, writes
 * the generated section of docs/compatibility.md, and ends with one summary line. Differences are
 * reported, not failures: the exit code is 0 whenever the suite ran.
 *
 * `npm run test:compat -- --self-test` compares two embedded servers instead (expect no
 * difference: it checks the normalization) and writes no document.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { encodeObject, kindMessage } from "kontroller/resources";
import { findKubeApiServer, startKubeApiServer, startTestServer } from "kontroller/testing";
import { compareReplies, type Difference } from "./difference.ts";
import {
  type Backend,
  type CompatReply,
  type CompatRequest,
  httpBackend,
  PROTOBUF,
} from "./http.ts";
import { knownDifferences } from "./known-differences.ts";
import {
  compatibilitySection,
  formatDifference,
  groupByCause,
  summaryLine,
  writeCompatibilityDoc,
} from "./report.ts";
import { apiVersionOf } from "./resource.ts";
import { allScenarios, resources, type Scenario, stringAt } from "./scenarios.ts";
import { authorizationScenario } from "./scenarios-authorization.ts";
import { CUSTOM_GROUP, widgetCrd } from "./scenarios-more.ts";

/** Scenarios run side by side (each in its own namespace); a scenario's steps run in order. */
const PARALLEL_SCENARIOS = 4;
/** How long a backend may take to serve the custom resource after its CRD is created. */
const CRD_READY_MS = 30_000;
/** How many causes the run prints, the most frequent first (the document lists them all). */
const PRINTED_CAUSES = 40;
const DOC = fileURLToPath(new URL("../../docs/compatibility.md", import.meta.url));

/**
 * The embedded server, with a shared token the suite sends: its user is the admin that the
 * kube-apiserver's token authenticates, so what a server records of its requester (a
 * CertificateSigningRequest's spec.username, uid and groups) is compared too. It authorizes by
 * RBAC, as the kube-apiserver does (startKubeApiServer's --authorization-mode=RBAC).
 */
async function embeddedBackend(name: string): Promise<Backend> {
  const token = randomBytes(16).toString("hex");
  const server = await startTestServer({
    backend: "embedded",
    controllers: false,
    token,
    authorization: "RBAC",
  });
  return httpBackend(name, server.url, { token }, () => server.close());
}

async function kubeBackend(): Promise<Backend> {
  const kube = await startKubeApiServer();
  return httpBackend("kube-apiserver", kube.url, { token: kube.token, ca: kube.ca }, () =>
    kube.close(),
  );
}

/** Sends a request; a failure to get any reply is status 0 with the error as the body. */
async function send(backend: Backend, req: CompatRequest): Promise<CompatReply> {
  try {
    return await backend.send(req);
  } catch (err) {
    return { status: 0, contentType: "", body: `no reply: ${String(err)}` };
  }
}

/** Creates the custom resource's CRD and waits until the backend serves its resource. */
async function setUp(backend: Backend): Promise<void> {
  const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const created = await send(backend, { method: "POST", path: crds, body: widgetCrd });
  if (created.status !== 201) {
    console.log(`compat: ${backend.name} refused the Widget CRD (${created.status})`);
    return;
  }
  const path = `/apis/${CUSTOM_GROUP}/v1/widgets`;
  const deadline = Date.now() + CRD_READY_MS;
  while ((await send(backend, { method: "GET", path })).status !== 200) {
    if (Date.now() > deadline) {
      console.log(`compat: ${backend.name} did not serve ${path} in time`);
      return;
    }
    // A CRD is established by the server's own controller: ask again shortly.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `group/plural` of every resource the backend lists in its discovery. */
async function servedBy(backend: Backend): Promise<Set<string>> {
  const served = new Set<string>();
  const versions = new Set(resources.map((r) => apiVersionOf(r)));
  for (const gv of versions) {
    const path = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
    const reply = await send(backend, { method: "GET", path });
    const list = (reply.body as { resources?: { name?: unknown }[] } | undefined)?.resources;
    if (reply.status !== 200 || !Array.isArray(list)) continue;
    const group = gv.includes("/") ? gv.split("/")[0]! : "";
    for (const r of list) if (typeof r.name === "string") served.add(`${group}/${r.name}`);
  }
  return served;
}

interface ProtobufCounts {
  replies: number;
  referenceBytes: number;
  embeddedBytes: number;
  /** Reads whose protobuf answer from the reference decodes to its JSON answer. */
  referenceAsJson: number;
  writes: number;
}

const noProtobuf = (): ProtobufCounts => ({
  replies: 0,
  referenceBytes: 0,
  embeddedBytes: 0,
  referenceAsJson: 0,
  writes: 0,
});

interface ScenarioResult {
  readonly requests: number;
  readonly sameStatus: number;
  readonly sameBody: number;
  readonly differences: Difference[];
  /**
   * The protobuf twins: replies, those whose bytes the codec re-encodes identically, and the
   * writes sent in protobuf.
   */
  readonly protobuf: ProtobufCounts;
}

async function runScenario(
  scenario: Scenario,
  reference: Backend,
  embedded: Backend,
  served: ReadonlySet<string>,
): Promise<ScenarioResult> {
  const saved: [Map<string, unknown>, Map<string, unknown>] = [new Map(), new Map()];
  const r = scenario.resource;
  const isServed = r === undefined || served.has(`${r.group}/${r.plural}`);
  const where = (step: Scenario["steps"][number]) => ({
    scenario: scenario.name,
    step: step.name,
    served: isServed,
    compare: step.compare ?? "body",
  });
  const result = {
    requests: 0,
    sameStatus: 0,
    sameBody: 0,
    differences: [] as Difference[],
    protobuf: noProtobuf(),
  };
  const count = (outcome: ReturnType<typeof compareReplies>) => {
    result.requests++;
    if (outcome.sameStatus) result.sameStatus++;
    if (outcome.sameBody) result.sameBody++;
    if (outcome.difference !== undefined) result.differences.push(outcome.difference);
  };
  for (const step of scenario.steps) {
    const requests = [step.request(saved[0]), step.request(saved[1])] as const;
    const writes = [protobufWrite(requests[0]), protobufWrite(requests[1])] as const;
    if (writes[0] !== undefined && writes[1] !== undefined) {
      // The same write in protobuf first, as a dry run: it meets the state the step will.
      const [pa, pb] = await Promise.all([send(reference, writes[0]), send(embedded, writes[1])]);
      count(compareReplies({ ...where(step), step: `${step.name} (protobuf)` }, writes[0], pa, pb));
      result.protobuf.writes++;
    }
    const [a, b] = await Promise.all([send(reference, requests[0]), send(embedded, requests[1])]);
    if (step.save !== undefined) {
      saved[0].set(step.save, a.body);
      saved[1].set(step.save, b.body);
    }
    count(compareReplies(where(step), requests[0], a, b));
    if (!protobufTwin(requests[0], a)) continue;
    // The same read in protobuf, of every built-in object or list a scenario reads as JSON.
    const twins = [
      { ...requests[0], accept: PROTOBUF },
      { ...requests[1], accept: PROTOBUF },
    ] as const;
    const [pa, pb] = await Promise.all([send(reference, twins[0]), send(embedded, twins[1])]);
    count(compareReplies({ ...where(step), step: `${step.name} (protobuf)` }, twins[0], pa, pb));
    result.protobuf.replies++;
    if (isDeepStrictEqual(listState(pa.body), listState(a.body))) result.protobuf.referenceAsJson++;
    if (pa.protobufReencoded) result.protobuf.referenceBytes++;
    if (pb.protobufReencoded) result.protobuf.embeddedBytes++;
  }
  return result;
}

/**
 * A create or update of a built-in object in JSON as the same write in protobuf (body and
 * answer), made a dry run; undefined for any other request, or a body the codec cannot encode.
 */
function protobufWrite(req: CompatRequest): CompatRequest | undefined {
  if ((req.method !== "POST" && req.method !== "PUT") || req.contentType !== undefined) {
    return undefined;
  }
  const body = req.body as { apiVersion?: unknown; kind?: unknown } | undefined;
  if (
    typeof body !== "object" ||
    body === null ||
    typeof body.apiVersion !== "string" ||
    typeof body.kind !== "string" ||
    kindMessage(body.apiVersion, body.kind) === undefined
  ) {
    return undefined;
  }
  let bytes: Uint8Array;
  try {
    bytes = encodeObject(body as Record<string, unknown>);
  } catch {
    return undefined;
  }
  const path = `${req.path}${req.path.includes("?") ? "&" : "?"}dryRun=All`;
  return { ...req, path, body: bytes, contentType: PROTOBUF, accept: PROTOBUF };
}

/**
 * A reply's body without a list's resourceVersion and continue token: scenarios run side by side,
 * so a list read twice is at two revisions.
 */
function listState(body: unknown): unknown {
  const list = body as { kind?: unknown; metadata?: Record<string, unknown> } | undefined;
  if (typeof list?.kind !== "string" || !list.kind.endsWith("List")) return body;
  const { resourceVersion: _rv, continue: _continue, ...metadata } = list.metadata ?? {};
  return { ...list, metadata };
}

/** A GET answered with a built-in object or list in JSON: one to ask again in protobuf. */
function protobufTwin(req: CompatRequest, reply: CompatReply): boolean {
  if (req.method !== "GET" || req.watch || req.accept !== undefined || reply.status !== 200) {
    return false;
  }
  const body = reply.body as { apiVersion?: unknown; kind?: unknown } | undefined;
  // /api's and /api/v1's discovery documents name no apiVersion.
  const apiVersion = body?.apiVersion ?? "";
  return (
    typeof apiVersion === "string" &&
    typeof body?.kind === "string" &&
    kindMessage(apiVersion, body.kind) !== undefined
  );
}

async function runAll(reference: Backend, embedded: Backend): Promise<void> {
  const started = Date.now();
  await Promise.all([setUp(reference), setUp(embedded)]);
  const served = await servedBy(embedded);
  const [discovery, ...rest] = [...allScenarios(), authorizationScenario()];
  const totals = { requests: 0, sameStatus: 0, sameBody: 0 };
  const protobuf = noProtobuf();
  const differences: Difference[] = [];
  const report = (scenario: Scenario, result: ScenarioResult) => {
    totals.requests += result.requests;
    totals.sameStatus += result.sameStatus;
    totals.sameBody += result.sameBody;
    protobuf.replies += result.protobuf.replies;
    protobuf.referenceBytes += result.protobuf.referenceBytes;
    protobuf.embeddedBytes += result.protobuf.embeddedBytes;
    protobuf.writes += result.protobuf.writes;
    protobuf.referenceAsJson += result.protobuf.referenceAsJson;
    differences.push(...result.differences);
    const differ = result.differences.length;
    const lines = [
      `compat: ${scenario.name} — ${result.requests} requests, ${differ === 0 ? "all identical" : `${differ} differ`}`,
      ...result.differences.map((d) => formatDifference(d, reference.name)),
    ];
    console.log(lines.join("\n"));
  };
  // Discovery first: the group lists must not see the scenarios' CRDs come and go.
  report(discovery!, await runScenario(discovery!, reference, embedded, served));
  const queue = [...rest];
  const worker = async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      report(s, await runScenario(s, reference, embedded, served));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_SCENARIOS }, worker));
  const groups = groupByCause(differences, knownDifferences);
  console.log(
    `compat: ${differences.length} requests differ; their causes (a request may have several):`,
  );
  for (const g of groups.slice(0, PRINTED_CAUSES)) {
    console.log(`  ${String(g.differences.length).padStart(4)}  ${g.cause.kind}: ${g.cause.title}`);
  }
  if (groups.length > PRINTED_CAUSES) {
    console.log(`  … and ${groups.length - PRINTED_CAUSES} more causes, each in fewer requests`);
  }
  const protobufLine = `compat: ${protobuf.writes} creates and updates sent first in protobuf (dry runs), ${protobuf.replies} reads asked again in protobuf (${reference.name}'s decode to its JSON answer for ${protobuf.referenceAsJson}); the codec re-encodes ${reference.name}'s bytes identically for ${protobuf.referenceBytes}, the ${embedded.name} server's for ${protobuf.embeddedBytes}`;
  console.log(protobufLine);
  if (reference.name === "kube-apiserver") {
    const version = await send(reference, { method: "GET", path: "/version" });
    const against = `kube-apiserver ${stringAt(version.body, "gitVersion") ?? "(unknown version)"}`;
    await writeCompatibilityDoc(
      DOC,
      compatibilitySection(totals, against, resources.length, groups, protobufLine),
    );
    console.log(`compat: wrote the differences to ${DOC}`);
  }
  console.log(`compat: ran in ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(summaryLine(totals));
}

async function main(): Promise<number> {
  const selfTest = process.argv.includes("--self-test");
  if (!selfTest && findKubeApiServer() === undefined) {
    console.log(
      "compat: no kube-apiserver binary on this machine, so there is nothing to compare the embedded server with: set KONTROLLER_KUBE_APISERVER to one, or KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd",
    );
    console.log("compat: skipped (no kube-apiserver binary)");
    return 0;
  }
  const started = await Promise.allSettled([
    selfTest ? embeddedBackend("reference") : kubeBackend(),
    embeddedBackend("embedded"),
  ]);
  const backends = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = started.find((s) => s.status === "rejected");
    if (failed !== undefined) {
      console.error(`compat: could not start the servers: ${String(failed.reason)}`);
      return 1;
    }
    await runAll(backends[0]!, backends[1]!);
    return 0;
  } finally {
    await Promise.all(backends.map((b) => b.close()));
  }
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(
    `compat: could not run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  return 1;
});
