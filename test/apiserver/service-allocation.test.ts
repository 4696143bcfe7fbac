/**
 * Services' cluster IPs and node ports, handed out as kube-apiserver 1.36 does: from the service
 * range (10.0.0.0/24 and 30000–32767 by default), each IP recorded as an IPAddress owned by its
 * Service, requested values checked, nothing handed out twice — also by two servers on one
 * storage — and everything freed when no longer used. The expectations are kube's answers; the
 * suite runs on both backends, but for the parts that need two servers or other ranges.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiServer, MemoryStorage } from "kontroller/apiserver";
import { embeddedOnly, startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

const SERVICES = "/api/v1/namespaces/default/services";
const IPADDRESSES = "/apis/networking.k8s.io/v1/ipaddresses";

const service = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
});

/** The last part of an IPv4 address in 10.0.0.0/24, or a failed assertion. */
function hostOf(ip: unknown): number {
  const match = /^10\.0\.0\.(\d+)$/.exec(String(ip));
  assert.ok(match, `${String(ip)} is in 10.0.0.0/24`);
  return Number(match[1]);
}

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

const create = async (name: string, spec: Record<string, unknown> = {}) =>
  call(s.url, "POST", SERVICES, service(name, spec));

describe("cluster IPs", () => {
  it("are handed out from the service range and recorded as IPAddresses owned by the Service, freed on delete", async () => {
    const r = await create("ip-a");
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const ip = r.body.spec.clusterIP;
    const host = hostOf(ip);
    assert.ok(
      host > 1 && host < 255,
      `${ip}: neither the network, broadcast nor the first address`,
    );
    assert.deepEqual(r.body.spec.clusterIPs, [ip]);
    assert.deepEqual(
      [r.body.spec.ipFamilies, r.body.spec.ipFamilyPolicy],
      [["IPv4"], "SingleStack"],
    );
    const address = await call(s.url, "GET", `${IPADDRESSES}/${ip}`);
    assert.equal(address.status, 200);
    assert.deepEqual(address.body.spec.parentRef, {
      resource: "services",
      namespace: "default",
      name: "ip-a",
    });
    assert.deepEqual(address.body.metadata.labels, {
      "ipaddress.kubernetes.io/ip-family": "IPv4",
      "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
    });
    assert.equal((await call(s.url, "DELETE", `${SERVICES}/ip-a`)).status, 200);
    assert.equal((await call(s.url, "GET", `${IPADDRESSES}/${ip}`)).status, 404);
  });

  it("are freed for each Service a delete of the collection removes", async () => {
    const ips: string[] = [];
    for (const name of ["bulk-a", "bulk-b"]) {
      const r = await call(s.url, "POST", SERVICES, {
        ...service(name),
        metadata: { name, labels: { bulk: "yes" } },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ips.push(r.body.spec.clusterIP);
    }
    const deleted = await call(s.url, "DELETE", `${SERVICES}?labelSelector=bulk%3Dyes`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.deepEqual(
      deleted.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(),
      ["bulk-a", "bulk-b"],
    );
    for (const ip of ips)
      assert.equal((await call(s.url, "GET", `${IPADDRESSES}/${ip}`)).status, 404);
  });

  it("gives a requested IP once, refuses one taken, outside the range or malformed, and gives it again once freed", async () => {
    const first = await create("ip-wanted", { clusterIP: "10.0.0.200" });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(first.body.spec.clusterIPs, ["10.0.0.200"]);
    const message = async (name: string, clusterIP: string) => {
      const r = await create(name, { clusterIP });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      return r.body.message as string;
    };
    assert.equal(
      await message("ip-taken", "10.0.0.200"),
      'Service "ip-taken" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.200"]: failed to allocate IP 10.0.0.200: provided IP is already allocated',
    );
    assert.equal(
      await message("ip-outside", "192.168.1.1"),
      'Service "ip-outside" is invalid: spec.clusterIPs: Invalid value: ["192.168.1.1"]: failed to allocate IP 192.168.1.1: the provided network does not match the current range',
    );
    assert.equal(
      await message("ip-bogus", "bogus"),
      'Service "ip-bogus" is invalid: spec.clusterIPs[0]: Invalid value: "bogus": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
    assert.equal((await call(s.url, "GET", `${SERVICES}/ip-taken`)).status, 404);
    assert.equal((await call(s.url, "DELETE", `${SERVICES}/ip-wanted`)).status, 200);
    const again = await create("ip-again", { clusterIP: "10.0.0.200" });
    assert.equal(again.status, 201, JSON.stringify(again.body));
  });

  it("stay the Service's: an update leaving them out keeps them, one changing them is refused", async () => {
    const created = await create("ip-kept");
    const ip = created.body.spec.clusterIP;
    const kept = await call(s.url, "PUT", `${SERVICES}/ip-kept`, {
      ...service("ip-kept"),
      metadata: { name: "ip-kept", labels: { updated: "yes" } },
    });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual([kept.body.spec.clusterIP, kept.body.spec.clusterIPs], [ip, [ip]]);
    // Another address than the one allocated at random (which may itself be .201).
    const other = ip === "10.0.0.201" ? "10.0.0.202" : "10.0.0.201";
    const moved = await call(s.url, "PUT", `${SERVICES}/ip-kept`, {
      ...service("ip-kept", { clusterIP: other }),
    });
    assert.equal(moved.status, 422);
    assert.equal(
      moved.body.message,
      `Service "ip-kept" is invalid: spec.clusterIPs[0]: Invalid value: ["${other}"]: may not change once set`,
    );
  });

  it("are not given to headless or ExternalName Services", async () => {
    const headless = await create("ip-headless", { clusterIP: "None" });
    assert.equal(headless.status, 201, JSON.stringify(headless.body));
    assert.deepEqual(
      [headless.body.spec.clusterIPs, headless.body.spec.ipFamilyPolicy],
      [["None"], "SingleStack"],
    );
    const external = await create("ip-external", {
      type: "ExternalName",
      externalName: "example.com",
      ports: [],
    });
    assert.equal(external.status, 201, JSON.stringify(external.body));
    assert.equal(external.body.spec.clusterIP, undefined);
  });
});

describe("node ports", () => {
  const portsOf = (r: Loose) => r.body.spec.ports.map((p: Loose) => p.nodePort);

  it("are handed out to NodePort and LoadBalancer Services from 30000-32767", async () => {
    const np = await create("np-auto", { type: "NodePort" });
    assert.equal(np.status, 201, JSON.stringify(np.body));
    const lb = await create("np-lb", { type: "LoadBalancer" });
    assert.equal(lb.status, 201, JSON.stringify(lb.body));
    assert.equal(lb.body.spec.allocateLoadBalancerNodePorts, true);
    for (const port of [...portsOf(np), ...portsOf(lb)])
      assert.ok(port >= 30000 && port <= 32767, `${port} is in the range`);
    assert.notEqual(portsOf(np)[0], portsOf(lb)[0]);
    const plain = await create("np-none");
    assert.deepEqual(portsOf(plain), [undefined]);
  });

  it("gives a requested port once, refuses one taken or outside the range, and frees it when the Service stops using it", async () => {
    const wanted = { type: "NodePort", ports: [{ port: 80, nodePort: 30080 }] };
    assert.equal((await create("np-wanted", wanted)).status, 201);
    const taken = await create("np-taken", wanted);
    assert.equal(taken.status, 422);
    assert.equal(
      taken.body.message,
      'Service "np-taken" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    const outside = await create("np-outside", {
      type: "NodePort",
      ports: [{ port: 80, nodePort: 80 }],
    });
    assert.equal(outside.status, 422);
    assert.equal(
      outside.body.message,
      'Service "np-outside" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    // A ClusterIP Service again: the port is free for another.
    const back = await call(s.url, "PUT", `${SERVICES}/np-wanted`, service("np-wanted"));
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal((await create("np-next", wanted)).status, 201);
  });

  it("stay the Service's across an update that leaves them out", async () => {
    const created = await create("np-kept", {
      type: "NodePort",
      ports: [{ name: "http", port: 80 }],
    });
    const port = portsOf(created)[0];
    const updated = await call(
      s.url,
      "PUT",
      `${SERVICES}/np-kept`,
      service("np-kept", { type: "NodePort", ports: [{ name: "http", port: 80 }] }),
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(portsOf(updated), [port]);
  });
});

describe("two servers", () => {
  it("on one storage never hand out the same cluster IP or node port", {
    skip: embeddedOnly("two embedded servers share one storage"),
  }, async () => {
    const storage = new MemoryStorage();
    // A range of 6 usable addresses, and 6 ports: the servers must share them out.
    const options = {
      storage,
      serviceClusterIpRange: "10.1.0.0/29",
      serviceNodePortRange: "31000-31005",
    };
    await using a = new ApiServer(options);
    await using b = new ApiServer(options);
    const urls = [await a.listen(), await b.listen()];
    const ips = new Set<string>();
    const ports = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const r = await call(urls[i % 2]!, "POST", SERVICES, service(`s${i}`, { type: "NodePort" }));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ips.add(r.body.spec.clusterIP);
      ports.add(r.body.spec.ports[0].nodePort);
    }
    assert.equal(ips.size, 6, "six different IPs");
    assert.equal(ports.size, 6, "six different ports");
    const full = await call(urls[0]!, "POST", SERVICES, service("s6"));
    assert.equal(full.status, 500);
    assert.equal(
      full.body.message,
      "Internal error occurred: failed to allocate a serviceIP: range is full",
    );
    assert.equal((await call(urls[1]!, "GET", `${SERVICES}/s6`)).status, 404);
  });

  it("with storages of their own hand out the same values independently", {
    skip: embeddedOnly("two embedded servers"),
  }, async () => {
    await using a = new ApiServer();
    await using b = new ApiServer();
    for (const url of [await a.listen(), await b.listen()]) {
      const r = await call(url, "POST", SERVICES, service("one", { clusterIP: "10.0.0.9" }));
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
  });

  it("refuse a range that is not one", {
    skip: embeddedOnly("options of the embedded server"),
  }, () => {
    assert.throws(
      () => new ApiServer({ serviceClusterIpRange: "10.0.0.0/33" }),
      /invalid service cluster IP range "10\.0\.0\.0\/33"/,
    );
    assert.throws(
      () => new ApiServer({ serviceNodePortRange: "32767-30000" }),
      /invalid service node port range "32767-30000"/,
    );
  });
});
