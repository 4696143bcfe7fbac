/**
 * The user-namespace controller (run by its Manager, as `main.ts` runs it) and the control
 * plane keep running while the API server under them is killed mid-run and a new one starts on
 * the same port with the same data; then Users are created, renamed and deleted, and the
 * controller converges on every one of them.
 *
 * Two ways to keep the data: the same `MemoryStorage` handed to the new server (same process),
 * and a fresh `EtcdStorage` on the same etcd (as a new server process would). Either way the
 * new server starts with empty watch caches at the storage's current revision, so the
 * informers' resumed watches either continue or get 410 Gone and relist; the test does not
 * care which, only that the caches catch up.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ApiServer, EtcdStorage, MemoryStorage, type Storage } from "kontroller/apiserver";
import { silentLogger } from "kontroller/cache";
import { type Client, createClient, isConnectionRefused } from "kontroller/client";
import { Manager } from "kontroller/controller";
import { startControlPlane } from "kontroller/controlplane";
import { customResourceDefinitions, isEstablished, namespaces } from "kontroller/resources";
import { embeddedOnly, startEtcd, waitFor } from "kontroller/testing";
import {
  DISPLAY_NAME_LABEL,
  labelValue,
  namespaceFor,
  USER_LABEL,
  userNamespaceController,
} from "../../examples/user-namespace/controller.ts";
import { User } from "../../examples/user-namespace/user.ts";

/** Where each server incarnation keeps its objects. */
interface StorageSource {
  /** The storage of the next server. */
  next(): Storage;
  /** Called once that server has closed. */
  release(storage: Storage): Promise<void>;
}

const newUser = (name: string, displayName: string) =>
  User.object({ metadata: { name }, spec: { displayName } });

/** Resolves once the User and its Namespace are as the controller must leave them. */
async function converged(
  client: Client,
  dataDir: string,
  name: string,
  displayName: string,
  signal: AbortSignal,
): Promise<void> {
  const user = await waitFor(
    client.resource(User),
    name,
    (u) =>
      u !== undefined &&
      u.spec.displayName === displayName &&
      u.status?.observedGeneration === u.metadata.generation &&
      u.status?.conditions?.find((c) => c.type === "Ready")?.status === "True",
    { signal, description: `User ${name} Ready at its generation` },
  );
  assert.equal(user?.status?.namespace, namespaceFor(name));
  const ns = await waitFor(
    client.resource(namespaces),
    namespaceFor(name),
    (n) => n?.metadata?.labels?.[DISPLAY_NAME_LABEL] === labelValue(displayName),
    { signal, description: `Namespace of ${name} labelled` },
  );
  assert.equal(ns?.metadata?.labels?.[USER_LABEL], name);
  const owner = ns?.metadata?.ownerReferences?.find((r) => r.controller);
  assert.equal(owner?.uid, user?.metadata.uid, `${name}'s namespace is owned by this User`);
  const profile = JSON.parse(await readFile(join(dataDir, name, "profile.json"), "utf8"));
  assert.equal(profile.displayName, displayName);
}

/** Resolves once the User, its Namespace and its external state are all gone. */
async function cleanedUp(
  client: Client,
  dataDir: string,
  name: string,
  signal: AbortSignal,
): Promise<void> {
  await waitFor(client.resource(User), name, (u) => u === undefined, { signal });
  assert.equal(existsSync(join(dataDir, name)), false, `${name}'s external state is gone`);
  await waitFor(client.resource(namespaces), namespaceFor(name), (n) => n === undefined, {
    signal,
  });
}

async function killAndRestart(source: StorageSource, signal: AbortSignal): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "kontroller-users-restart-"));
  let storage = source.next();
  let server = new ApiServer({ storage, compactionIntervalMs: 0 });
  const url = await server.listen();
  const port = Number(new URL(url).port);
  // Neither the controller nor the control plane nor this client is told about the restart:
  // each keeps talking to the URL.
  await using client = createClient({ url });
  await using refusing = createClient({ url, retry: { maxRetries: 0 } });
  const users = client.resource(User);
  try {
    const crd = await client.resource(customResourceDefinitions).create(User.crd());
    // Established: the server serves users (on etcd, the CRD reaches the server's CRD
    // controller through its watch, so the resource is not served the moment the create returns).
    await waitFor(
      client.resource(customResourceDefinitions),
      crd.metadata?.name ?? "",
      isEstablished,
      { signal },
    );
    await using _controlPlane = await startControlPlane({
      clientOptions: { url },
      logger: silentLogger,
      gracefulShutdownMs: 1000,
    });
    const manager = new Manager({
      name: "user-namespace",
      clientOptions: { url },
      logger: silentLogger,
      gracefulShutdownMs: 1000,
    });
    manager.add(userNamespaceController(manager, { dataDir }));
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    let crashed: unknown;
    running.catch((err: unknown) => {
      crashed = err;
    });
    try {
      const before = { ann: "Ann", bob: "Bob", cat: "Cat", dan: "Dan" };
      for (const [name, display] of Object.entries(before))
        await users.create(newUser(name, display));
      for (const [name, display] of Object.entries(before))
        await converged(client, dataDir, name, display, signal);

      // Mid-run: two more Users, and the server dies before the controller is done with them
      // (their events may be in flight, their reconciles half-way).
      await users.create(newUser("eve", "Eve"));
      await users.create(newUser("fay", "Fay"));
      await server.close(); // every watch ends, every connection is cut
      await source.release(storage);

      // While no server runs, nothing can change.
      await assert.rejects(refusing.resource(User).create(newUser("gus", "Gus")), (err) =>
        isConnectionRefused(err),
      );

      storage = source.next();
      server = new ApiServer({ storage, port, compactionIntervalMs: 0 });
      assert.equal(await server.listen(), url, "the new server listens where the old one did");

      // After the restart: a new User, a renamed one, two deleted (one from before the kill,
      // one created just before it).
      await users.create(newUser("hal", "Hal"));
      await users.patch("bob", "merge", { spec: { displayName: "Bob Renamed" } });
      await users.delete("cat");
      await users.delete("eve");

      const after = { ann: "Ann", bob: "Bob Renamed", dan: "Dan", fay: "Fay", hal: "Hal" };
      for (const [name, display] of Object.entries(after))
        await converged(client, dataDir, name, display, signal);
      for (const name of ["cat", "eve"]) await cleanedUp(client, dataDir, name, signal);
      assert.equal(await users.get("gus").catch(() => undefined), undefined);
      assert.deepEqual(
        (await users.list()).items.map((u) => u.metadata.name).sort(),
        Object.keys(after),
      );
      assert.equal(crashed, undefined, "the manager kept running through the restart");
    } finally {
      stop.abort();
      await running;
    }
  } finally {
    await server.close();
    await source.release(storage);
    await rm(dataDir, { recursive: true, force: true });
  }
}

// A generous bound: after the restart the control plane relists every resource kind the server
// serves (68), which takes several times longer on a loaded CI machine than alone (~5 s each).
describe("example: user-namespace across an API server restart", { timeout: 90_000 }, () => {
  it("converges after the server is killed and restarted on the same memory storage", {
    skip: embeddedOnly("killing the API server in-process and restarting it on the same storage"),
  }, async (t) => {
    const storage = new MemoryStorage();
    try {
      await killAndRestart({ next: () => storage, release: async () => {} }, t.signal);
    } finally {
      await storage.close();
    }
  });

  it("converges after the server is killed and a new one starts on the same etcd", {
    skip: embeddedOnly("killing the API server in-process and restarting it on the same storage"),
  }, async (t) => {
    await using etcd = await startEtcd();
    await killAndRestart(
      { next: () => new EtcdStorage({ endpoints: [etcd.endpoint] }), release: (s) => s.close() },
      t.signal,
    );
  });
});
