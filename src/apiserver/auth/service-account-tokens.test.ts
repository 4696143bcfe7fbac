import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errors, type KubeObject } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { type ObjectLookup, ServiceAccountTokens } from "./service-account-tokens.ts";

/** Service accounts, pods… by `resource/namespace/name`, for the tokens' checks. */
function objects(entries: Record<string, KubeObject>): ObjectLookup {
  return async (resource, namespace, name) => {
    const found = entries[`${resource}/${namespace}/${name}`];
    if (found === undefined) throw errors.notFound({ group: "", resource }, name);
    return found;
  };
}

const robot: KubeObject = { metadata: { name: "robot", namespace: "ns", uid: "sa-uid" } };
const SUBJECT = { namespace: "ns", serviceAccount: { name: "robot", uid: "sa-uid" } };

describe("ServiceAccountTokens", () => {
  it("authenticates a token it issued until it expires, with a minute's leeway", async () => {
    const clock = new FakeClock();
    const tokens = new ServiceAccountTokens({
      lookup: objects({ "serviceaccounts/ns/robot": robot }),
      clock,
    });
    const issued = await tokens.issue(SUBJECT, tokens.audiences, 600);
    assert.equal(issued.expiresAtMs - issued.issuedAtMs, 600_000);
    const now = await tokens.authenticate(issued.token);
    assert.equal(now.kind, "authenticated");
    assert.deepEqual(now.kind === "authenticated" && now.user.groups, [
      "system:serviceaccounts",
      "system:serviceaccounts:ns",
      "system:authenticated",
    ]);
    clock.advance(660_000);
    assert.equal((await tokens.authenticate(issued.token)).kind, "authenticated");
    clock.advance(1_000);
    assert.deepEqual(await tokens.authenticate(issued.token), {
      kind: "rejected",
      error: "service account token has expired",
    });
  });

  it("rejects a token whose service account is gone or was made again", async () => {
    const clock = new FakeClock();
    const entries: Record<string, KubeObject> = { "serviceaccounts/ns/robot": robot };
    const tokens = new ServiceAccountTokens({ lookup: objects(entries), clock });
    const { token } = await tokens.issue(SUBJECT, tokens.audiences, 3600);
    entries["serviceaccounts/ns/robot"] = { metadata: { ...robot.metadata, uid: "new-uid" } };
    assert.deepEqual(await tokens.authenticate(token), {
      kind: "rejected",
      error: "service account UID (new-uid) does not match claim (sa-uid)",
    });
    delete entries["serviceaccounts/ns/robot"];
    assert.deepEqual(await tokens.authenticate(token), {
      kind: "rejected",
      error: 'serviceaccounts "robot" not found',
    });
  });

  it("leaves tokens of other issuers to other authenticators, and rejects a forged one", async () => {
    const tokens = new ServiceAccountTokens({ lookup: objects({}), clock: new FakeClock() });
    assert.deepEqual(await tokens.authenticate("a.b.c"), { kind: "unrecognized" });
    const other = new ServiceAccountTokens({
      lookup: objects({ "serviceaccounts/ns/robot": robot }),
      clock: new FakeClock(),
    });
    await tokens.issue(SUBJECT, tokens.audiences, 3600);
    const foreign = await other.issue(SUBJECT, other.audiences, 3600);
    assert.equal((await tokens.authenticate(foreign.token)).kind, "rejected");
  });

  it("adds the bound pod, and its node, to the user's extra", async () => {
    const tokens = new ServiceAccountTokens({
      lookup: objects({
        "serviceaccounts/ns/robot": robot,
        "pods/ns/p": { metadata: { name: "p", uid: "pod-uid" } },
      }),
      clock: new FakeClock(),
    });
    const { token } = await tokens.issue(
      { ...SUBJECT, pod: { name: "p", uid: "pod-uid" }, node: { name: "n1", uid: "" } },
      ["vault"],
      3600,
    );
    const found = await tokens.authenticate(token, ["vault"]);
    assert.equal(found.kind, "authenticated");
    if (found.kind !== "authenticated") return;
    assert.deepEqual(found.audiences, ["vault"]);
    const extra = found.user.extra ?? {};
    assert.deepEqual(extra["authentication.kubernetes.io/pod-name"], ["p"]);
    assert.deepEqual(extra["authentication.kubernetes.io/node-name"], ["n1"]);
    assert.equal(extra["authentication.kubernetes.io/node-uid"], undefined);
  });
});
