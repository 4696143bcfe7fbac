/**
 * How each kind's names are checked, and the order of the causes of an invalid object, as
 * kube-apiserver 1.36 answers: most kinds name objects as DNS subdomains; Services and
 * StatefulSets as DNS labels; PodDisruptionBudgets, core/v1 Events and CSRs check no names of
 * their own, so only the generic checks every kind gets (names as path segments, run after the
 * kind's own validation passed) apply; events.k8s.io Events are named by their internal (core)
 * kind; a CRD's name must be `<plural>.<group>`, its generateName too. Runs on both backends (the
 * expectations are kube-apiserver 1.36's answers).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { apiVersionOf, type CompatResource, collectionPath } from "../compat/resource.ts";
import { resources, scenarioName } from "../compat/scenarios.ts";
import { call, type Loose } from "./helpers.ts";

const NS = "name-rules";
const BAD_NAME = "Not_A_Valid_Name";
const BAD_LABELS = { "not a valid key": "x" };

const LABEL_PROBLEM =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_PROBLEM =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const KEY_PROBLEM =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NOT_PLURAL_GROUP = 'must be spec.names.plural+"."+spec.group';

const invalid = (f: string, value: string, problem: string) => ({
  reason: "FieldValueInvalid",
  message: `Invalid value: ${JSON.stringify(value)}: ${problem}`,
  field: f,
});
const badName = (problem: string) => invalid("metadata.name", BAD_NAME, problem);
const badKey = invalid("metadata.labels", "not a valid key", KEY_PROBLEM);

/** The compatibility suite's resource of `name` (its scenario's name), with a valid sample. */
function resourceOf(name: string): CompatResource {
  const r = resources.find((x) => scenarioName(x) === name);
  assert.ok(r, name);
  return r;
}

/** POSTs the sample of `r` for `sampleName` with `meta` (name or generateName, labels). */
function create(r: CompatResource, meta: Loose, sampleName: string = meta.name) {
  const ns = r.namespaced ? NS : "";
  return call(s.url, "POST", collectionPath(r, ns), {
    apiVersion: apiVersionOf(r),
    kind: r.kind,
    metadata: { ...meta, ...(r.namespaced ? { namespace: ns } : {}) },
    ...r.sample(sampleName, ns),
  });
}

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } };
  assert.equal((await call(s.url, "POST", "/api/v1/namespaces", ns)).status, 201);
});
after(() => s.close());

describe("a kind's name rule", () => {
  for (const name of ["services", "statefulsets"]) {
    it(`names ${name} as DNS-1123 labels`, async () => {
      const reply = await create(resourceOf(name), { name: BAD_NAME, labels: BAD_LABELS });
      assert.equal(reply.status, 422);
      assert.deepEqual(reply.body.details.causes, [badName(LABEL_PROBLEM), badKey]);
      const dotted = await create(resourceOf(name), { name: "a.b" });
      assert.deepEqual(
        dotted.body.details?.causes?.[0],
        invalid("metadata.name", "a.b", "must not contain dots"),
      );
    });
  }

  for (const name of ["events", "poddisruptionbudgets", "certificatesigningrequests"]) {
    it(`checks no names of ${name} but the generic path-segment rule`, async () => {
      const r = resourceOf(name);
      const reply = await create(r, { name: BAD_NAME, labels: BAD_LABELS });
      assert.equal(reply.status, 422);
      assert.deepEqual(reply.body.details.causes, [badKey]);
      assert.equal(
        reply.body.message,
        `${r.kind}${r.group === "" ? "" : `.${r.group}`} "${BAD_NAME}" is invalid: metadata.labels: ${badKey.message}`,
      );
      const upper = await create(r, { name: "Upper_Case.Name" });
      assert.equal(upper.status, 201, JSON.stringify(upper.body));
      const percent = await create(r, { name: "a%b" });
      assert.equal(percent.status, 422);
      assert.deepEqual(percent.body.details.causes, [
        invalid("metadata.name", "a%b", "may not contain '%'"),
      ]);
    });
  }
});

describe("an events.k8s.io Event", () => {
  it("is reported invalid as its internal kind, a core Event", async () => {
    const reply = await create(resourceOf("events.events.k8s.io"), {
      name: BAD_NAME,
      labels: BAD_LABELS,
    });
    assert.equal(reply.status, 422);
    assert.equal(
      reply.body.message,
      `Event "${BAD_NAME}" is invalid: [metadata.name: ${badName(SUBDOMAIN_PROBLEM).message}, metadata.labels: ${badKey.message}]`,
    );
    assert.deepEqual(reply.body.details, {
      name: BAD_NAME,
      kind: "Event",
      causes: [badName(SUBDOMAIN_PROBLEM), badKey],
    });
  });
});

describe("a CustomResourceDefinition's name", () => {
  it("is a DNS subdomain and <plural>.<group>, checked before the rest of the object", async () => {
    const reply = await create(resourceOf("customresourcedefinitions"), {
      name: BAD_NAME,
      labels: BAD_LABELS,
    });
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.body.details.causes, [
      badName(SUBDOMAIN_PROBLEM),
      badName(NOT_PLURAL_GROUP),
      badKey,
      invalid("spec.names.plural", BAD_NAME, DNS1035),
      invalid("spec.names.singular", "not_a_valid_nam", DNS1035),
      invalid(
        "spec.names.kind",
        "Not_A_Valid_Nam",
        `may have mixed case, but should otherwise match: ${DNS1035}`,
      ),
      invalid(
        "spec.names.listKind",
        "Not_A_Valid_NamList",
        `may have mixed case, but should otherwise match: ${DNS1035}`,
      ),
    ]);
  });

  it("is checked on its generateName too, which cannot make <plural>.<group>", async () => {
    const crds = resourceOf("customresourcedefinitions");
    const reply = await create(crds, { generateName: "gen-" }, "gens.name-rules.example.com");
    assert.equal(reply.status, 422);
    const generated = reply.body.details.name as string;
    assert.match(generated, /^gen-[a-z0-9]{5}$/);
    assert.deepEqual(reply.body.details.causes, [
      invalid("metadata.generateName", "gen-", NOT_PLURAL_GROUP),
      invalid("metadata.name", generated, NOT_PLURAL_GROUP),
    ]);
  });
});
