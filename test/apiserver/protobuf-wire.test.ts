/**
 * Kubernetes protobuf on the server's wire, as kube-apiserver speaks it (run on both backends:
 * the bytes kube-apiserver writes are decoded by the same codec): objects, lists, errors and
 * watch frames for a client that asks for protobuf, protobuf request bodies and kube's answers
 * to bad ones, and content negotiation — custom resources and Tables stay JSON.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeMessage, decodeObject, encodeObject, protoMessage } from "kontroller/resources";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, crdUntil, type Loose } from "./helpers.ts";

const PB = "application/vnd.kubernetes.protobuf";
const NS = "pbwire";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const GROUP = "pbwire.example.com";
const WIDGETS = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;

let s: TestServer;

interface Raw {
  status: number;
  type: string;
  bytes: Buffer;
}

async function raw(
  method: string,
  path: string,
  body?: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<Raw> {
  const res = await fetch(s.url + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

const post = (body: Uint8Array, path = CMS, accept = "application/json") =>
  raw("POST", path, body, { "content-type": PB, accept });

before(async () => {
  s = await startTestServer({ controllers: false });
  assert.equal(
    (await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: NS } })).status,
    201,
  );
  const crd = await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  });
  assert.equal(crd.status, 201, JSON.stringify(crd.body));
  await crdUntil(s.url, `widgets.${GROUP}`, (o) =>
    (o.status?.conditions ?? []).some(
      (c: Loose) => c.type === "Established" && c.status === "True",
    ),
  );
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await call(s.url, "GET", WIDGETS)).status === 200) break;
  }
});
after(() => s?.close());

describe("protobuf responses", () => {
  it("answers a get, a list and a limited list in protobuf that decode to the JSON answers", async () => {
    for (const name of ["a1", "a2"]) {
      const made = await call(s.url, "POST", CMS, {
        metadata: { name, labels: { app: "pb" } },
        data: { z: "1", a: "2", m: "" },
        binaryData: { bin: "AAEC" },
      });
      assert.equal(made.status, 201);
    }
    const json = (await call(s.url, "GET", `${CMS}/a1`)).body;
    const got = await raw("GET", `${CMS}/a1`, undefined, { accept: PB });
    assert.equal(got.status, 200);
    assert.equal(got.type, PB);
    assert.deepEqual(decodeObject(got.bytes), json);
    // The envelope ends with kube's empty contentEncoding and contentType.
    assert.deepEqual([...got.bytes.subarray(-4)], [0x1a, 0x00, 0x22, 0x00]);

    const list = await raw("GET", CMS, undefined, { accept: `${PB}, application/json` });
    const listJson = (await call(s.url, "GET", CMS)).body;
    const decoded = decodeObject(list.bytes) as Loose;
    assert.equal(decoded.kind, "ConfigMapList");
    assert.equal(decoded.metadata.resourceVersion, listJson.metadata.resourceVersion);
    assert.deepEqual(decoded.items, listJson.items);

    const page = decodeObject(
      (await raw("GET", `${CMS}?limit=1`, undefined, { accept: PB })).bytes,
    ) as Loose;
    assert.equal(page.items.length, 1);
    assert.equal(page.metadata.remainingItemCount, 1);
    assert.ok(page.metadata.continue);
  });

  it("writes an error as a protobuf Status when the client asked for protobuf", async () => {
    const missing = await raw("GET", `${CMS}/nope`, undefined, { accept: PB });
    assert.equal(missing.status, 404);
    assert.equal(missing.type, PB);
    const status = decodeObject(missing.bytes) as Loose;
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "NotFound");
    assert.equal(status.code, 404);
    assert.deepEqual(status.details, { name: "nope", kind: "configmaps" });
  });

  it("streams a watch as length-prefixed WatchEvent frames, each object in its envelope", async () => {
    const made = await call(s.url, "POST", CMS, { metadata: { name: "w0" } });
    const ac = new AbortController();
    const res = await fetch(
      `${s.url}${CMS}?watch=true&resourceVersion=${made.body.metadata.resourceVersion}`,
      {
        headers: { accept: PB },
        signal: ac.signal,
      },
    );
    assert.equal(res.headers.get("content-type"), `${PB};stream=watch`);
    assert.equal(
      (await call(s.url, "POST", CMS, { metadata: { name: "w1" }, data: { k: "v" } })).status,
      201,
    );
    const reader = res.body!.getReader();
    let buffered = Buffer.alloc(0);
    while (buffered.length < 4 || buffered.length < 4 + buffered.readUInt32BE(0)) {
      const { value, done } = await reader.read();
      assert.ok(!done, "the watch ended before its first frame");
      buffered = Buffer.concat([buffered, value]);
    }
    ac.abort();
    const frame = buffered.subarray(4, 4 + buffered.readUInt32BE(0));
    // A bare WatchEvent: no envelope of its own.
    assert.notEqual(frame.subarray(0, 4).toString("latin1"), "k8s\0");
    const event = decodeMessage(
      frame,
      protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")!,
    ) as Loose;
    assert.equal(event.type, "ADDED");
    assert.equal(event.object.kind, "ConfigMap");
    assert.equal(event.object.metadata.name, "w1");
    assert.deepEqual(event.object.data, { k: "v" });
  });
});

describe("protobuf request bodies", () => {
  const configMap = (name: string, extra: Loose = {}) =>
    encodeObject({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name },
      data: { k: "v" },
      ...extra,
    });

  it("creates from a protobuf body, answering in what the client accepts", async () => {
    const json = await post(configMap("c1"));
    assert.equal(json.status, 201);
    assert.equal(json.type, "application/json");
    assert.deepEqual(JSON.parse(json.bytes.toString()).data, { k: "v" });
    const pb = await post(configMap("c2", { immutable: false }), CMS, `${PB},application/json`);
    assert.equal(pb.status, 201);
    const back = decodeObject(pb.bytes) as Loose;
    // A pointer field set to its zero value stays set.
    assert.equal(back.immutable, false);
    assert.equal(back.metadata.namespace, NS);
  });

  it("takes the endpoint's kind where the envelope names none, and skips unknown fields", async () => {
    const body = Buffer.from(configMap("c3"));
    // Rewrite the envelope's type meta (field 1) to an empty one.
    const typeMetaLength = body[5]!;
    const untyped = Buffer.concat([
      body.subarray(0, 4),
      Buffer.from([0x0a, 0x00]),
      body.subarray(6 + typeMetaLength),
    ]);
    const made = await post(untyped);
    assert.equal(made.status, 201, made.bytes.toString());
    // Field 99 of the ConfigMap: a length-delimited field nobody knows, in the raw message.
    const withUnknown = encodeObject({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c4" },
    });
    const rawAt = 4 + 2 + withUnknown[5]!;
    const rawLength = withUnknown[rawAt + 1]!;
    const extra = Buffer.from([0x9a, 0x06, 0x02, 0x68, 0x69]);
    const patched = Buffer.concat([
      withUnknown.subarray(0, rawAt),
      Buffer.from([0x12, rawLength + extra.length]),
      withUnknown.subarray(rawAt + 2, rawAt + 2 + rawLength),
      extra,
      withUnknown.subarray(rawAt + 2 + rawLength),
    ]);
    const unknown = await raw("POST", `${CMS}?fieldValidation=Strict`, patched, {
      "content-type": PB,
    });
    assert.equal(unknown.status, 201, unknown.bytes.toString());
  });

  it("refuses a body that is not protobuf, is cut short or runs past its end, and stores nothing", async () => {
    const good = Buffer.from(configMap("bad"));
    const cases: [string, Buffer, RegExp][] = [
      [
        "wrong magic",
        Buffer.concat([Buffer.from("K8s\0"), good.subarray(4)]),
        /unrecognized \(must be of type ConfigMap\): provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\] \(4b387300/,
      ],
      [
        "only the magic",
        good.subarray(0, 4),
        /unrecognized \(must be of type ConfigMap\): empty body/,
      ],
      ["empty", Buffer.alloc(0), /unrecognized \(must be of type ConfigMap\): empty data/],
      ["cut short", good.subarray(0, 20), /unrecognized \(must be of type ConfigMap\)/],
      [
        "a length past the end",
        Buffer.concat([good.subarray(0, 4 + 2 + good[5]!), Buffer.from([0x12, 0xf4, 0x03])]),
        /unrecognized \(must be of type ConfigMap\)/,
      ],
      [
        "a wire type the field does not have",
        encodeWithRaw(Buffer.from([0x08, 0x05])),
        /ConfigMap in version "v1" cannot be handled as a ConfigMap/,
      ],
    ];
    for (const [what, body, message] of cases) {
      const r = await post(body);
      assert.equal(r.status, 400, what);
      const status = JSON.parse(r.bytes.toString());
      assert.equal(status.reason, "BadRequest", what);
      assert.match(status.message, message, what);
    }
    assert.equal((await call(s.url, "GET", `${CMS}/bad`)).status, 404, "nothing stored");
    assert.equal((await post(configMap("after"))).status, 201, "still serving");
  });

  it("refuses an envelope of another kind in kube's words", async () => {
    const secret = encodeObject({ apiVersion: "v1", kind: "Secret", metadata: { name: "x" } });
    const r = await post(secret);
    assert.equal(r.status, 400);
    assert.match(
      JSON.parse(r.bytes.toString()).message,
      /Secret in version "v1" cannot be handled as a ConfigMap/,
    );
  });
});

/** A ConfigMap envelope whose raw message is `rawMessage`. */
function encodeWithRaw(rawMessage: Buffer): Buffer {
  const typeMeta = Buffer.from([
    0x0a,
    0x0f,
    0x0a,
    0x02,
    ...Buffer.from("v1"),
    0x12,
    0x09,
    ...Buffer.from("ConfigMap"),
  ]);
  return Buffer.concat([
    Buffer.from("k8s\0"),
    typeMeta,
    Buffer.from([0x12, rawMessage.length]),
    rawMessage,
  ]);
}

describe("content negotiation with protobuf", () => {
  it("follows q-values, and keeps Tables and custom resources in JSON", async () => {
    const accept = async (header: string, path = `${CMS}/a1`) => {
      const r = await raw("GET", path, undefined, { accept: header });
      return `${r.status} ${r.type}`;
    };
    assert.equal(await accept(`application/json;q=0.5, ${PB};q=0.9`), `200 ${PB}`);
    assert.equal(await accept(`${PB};q=0.5, application/json;q=0.9`), "200 application/json");
    // kube's parser: q=0 only sorts last, a q that does not parse is 0, and a concrete type goes
    // before */* whatever their q.
    assert.equal(await accept(`${PB};q=0`), `200 ${PB}`);
    assert.equal(await accept(`${PB};q=abc, application/json;q=0.1`), "200 application/json");
    assert.equal(await accept(`*/*;q=1, ${PB};q=0.1`), `200 ${PB}`);
    assert.equal(
      await accept(`${PB};as=Table;v=v1;g=meta.k8s.io, application/json`),
      "200 application/json",
    );
    assert.equal((await accept(`${PB};as=Table;v=v1;g=meta.k8s.io`)).split(" ")[0], "406");
    const meta = await raw("GET", `${CMS}/a1`, undefined, {
      accept: `${PB};as=PartialObjectMetadata;v=v1;g=meta.k8s.io`,
    });
    assert.equal(meta.type, PB);
    assert.equal((decodeObject(meta.bytes) as Loose).kind, "PartialObjectMetadata");

    assert.equal(
      (
        await call(s.url, "POST", WIDGETS, {
          apiVersion: `${GROUP}/v1`,
          kind: "Widget",
          metadata: { name: "w" },
        })
      ).status,
      201,
    );
    assert.equal((await accept(PB, `${WIDGETS}/w`)).split(" ")[0], "406");
    assert.equal(await accept(`${PB}, application/json`, `${WIDGETS}/w`), "200 application/json");
  });

  it("refuses, as kube's route filter does, an Accept naming none of a built-in's types exactly", async () => {
    const refusal = async (header: string, path: string) => {
      const r = await raw("GET", path, undefined, { accept: header });
      assert.equal(r.status, 406, header);
      const status = JSON.parse(r.bytes.toString("utf8")) as Loose;
      assert.equal(status.reason, "NotAcceptable");
      assert.deepEqual(status.details, {});
      return status.message as string;
    };
    const types = `application/json, application/yaml, ${PB}`;
    const streams = `application/json;stream=watch, ${PB};stream=watch`;
    const available = "406: Not Acceptable\n\nAvailable representations:";
    assert.equal(await refusal("application/*", `${CMS}/a1`), `${available} ${types}`);
    assert.equal(await refusal("text/plain", CMS), `${available} ${types}, ${streams}`);
    // Case counts, and a wildcard passes the filter only beside a type it names.
    assert.equal(await refusal("Application/Json", `${CMS}/a1`), `${available} ${types}`);
    const r = await raw("GET", `${CMS}/a1`, undefined, {
      accept: `application/*;q=0.9, ${PB};q=0.1`,
    });
    assert.equal(`${r.status} ${r.type}`, `200 ${PB}`);
  });
});
