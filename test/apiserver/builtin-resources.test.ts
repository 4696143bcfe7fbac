/**
 * src/resources/builtin-resources.ts — every resource kube-apiserver 1.36 serves by default — is
 * generated from Kubernetes' OpenAPI documents in ../shared/k8s-api (builtin-resources-gen.ts).
 * This test rebuilds it and fails when the committed file differs
 * (`KONTROLLER_UPDATE_BUILTIN_RESOURCES=1` writes it instead), and, where a kube-apiserver binary
 * is on the machine, checks the table against that server's own discovery.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { it } from "node:test";
import { BUILTIN_RESOURCES } from "kontroller/resources";
import { findKubeApiServer, startTestServer } from "kontroller/testing";
import {
  generateBuiltinResources,
  OPENAPI_DIR,
  renderBuiltinResources,
} from "./builtin-resources-gen.ts";

const FILE = new URL("../../src/resources/builtin-resources.ts", import.meta.url);

it("builtin-resources.ts is the table Kubernetes 1.36's OpenAPI documents give", {
  skip: existsSync(OPENAPI_DIR)
    ? false
    : `no reference data at ${OPENAPI_DIR.pathname} (../shared/k8s-api, beside the repository)`,
}, async () => {
  const text = renderBuiltinResources(generateBuiltinResources());
  if (process.env.KONTROLLER_UPDATE_BUILTIN_RESOURCES === "1") {
    await writeFile(FILE, text);
    return;
  }
  assert.equal(
    await readFile(FILE, "utf8"),
    text,
    "regenerate: KONTROLLER_UPDATE_BUILTIN_RESOURCES=1",
  );
});

interface DiscoveryResource {
  resource: string;
  responseKind: { kind: string };
  scope: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: {
    subresource: string;
    responseKind: { group: string; version: string; kind: string };
    verbs: string[];
  }[];
}

it("lists what a real kube-apiserver's aggregated discovery lists, resource for resource", {
  skip:
    findKubeApiServer() === undefined
      ? "no kube-apiserver binary on this machine (set KONTROLLER_KUBE_APISERVER or KUBEBUILDER_ASSETS)"
      : false,
}, async () => {
  await using s = await startTestServer({ backend: "kube-apiserver", controllers: false });
  const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  const real: string[] = [];
  for (const root of ["/api", "/apis"]) {
    const doc = (await (await fetch(`${s.url}${root}`, { headers: { accept } })).json()) as {
      items: {
        metadata: { name?: string };
        versions: { version: string; resources: DiscoveryResource[] }[];
      }[];
    };
    for (const g of doc.items) {
      for (const v of g.versions) {
        for (const r of v.resources) real.push(describe(g.metadata.name ?? "", v.version, r));
      }
    }
  }
  const ours = BUILTIN_RESOURCES.map((r) =>
    describe(r.group, r.version, {
      resource: r.plural,
      responseKind: { kind: r.kind },
      scope: r.namespaced ? "Namespaced" : "Cluster",
      verbs: [...r.verbs],
      shortNames: [...r.shortNames],
      categories: [...r.categories],
      subresources: r.subresources.map((sub) => ({
        subresource: sub.name,
        responseKind: { group: sub.group, version: sub.version, kind: sub.kind },
        verbs: [...sub.verbs],
      })),
    }),
  );
  assert.deepEqual(ours.sort(), real.sort());
});

/** One line per resource with every fact the table holds, for a readable diff. */
function describe(group: string, version: string, r: DiscoveryResource): string {
  const subs = (r.subresources ?? [])
    .map((s) => {
      const k = s.responseKind;
      return `${s.subresource}=${k.group}/${k.version}/${k.kind}:${[...s.verbs].sort()}`;
    })
    .sort();
  return [
    `${group}/${version}/${r.resource}`,
    r.responseKind.kind,
    r.scope,
    [...r.verbs].sort().join(","),
    `short=${(r.shortNames ?? []).join(",")}`,
    `categories=${(r.categories ?? []).join(",")}`,
    ...subs,
  ].join(" ");
}
