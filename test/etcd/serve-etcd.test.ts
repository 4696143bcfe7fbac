/**
 * `kontroller serve --storage etcd`: start-up waits for etcd, saying so; two processes on one
 * etcd and prefix serve the same objects, stored where kube stores them; bad flags exit 2.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { EtcdStorage } from "kontroller/apiserver";
import { startEtcd } from "kontroller/testing";
import { call, configMap } from "../apiserver/helpers.ts";

const cli = new URL("../../src/cli/kontroller.ts", import.meta.url).pathname;
const cms = "/api/v1/namespaces/default/configmaps";

/**
 * Starts `kontroller serve` on plain HTTP (loopback); resolves `listening` with its URL,
 * `said(re)` on stderr lines.
 */
function serve(args: string[]) {
  const argv = ["--conditions=kontroller-source", cli, "serve", "--insecure-http", ...args];
  const child = spawn(process.execPath, argv, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
    for (const w of waiters.filter((w) => w.re.test(err))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /^kontroller API server listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  listening.catch(() => {});
  const said = (re: RegExp) =>
    new Promise<void>((resolve) => {
      if (re.test(err)) resolve();
      else waiters.push({ re, resolve });
    });
  return { child, listening, exited, said, stderr: () => err };
}

describe("kontroller serve --storage etcd", () => {
  it("waits for etcd with a message, serves once it is up, and stops cleanly", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    await etcd.kill();
    const s = serve([
      ...["--port", "0", "--controllers", "none"],
      ...["--storage", "etcd", "--etcd-endpoints", etcd.endpoint],
    ]);
    try {
      await s.said(/waiting for etcd at http:\/\/127\.0\.0\.1:\d+ \(attempt 1/);
      await etcd.restart();
      const url = await s.listening;
      assert.equal((await call(url, "POST", cms, configMap("stored"))).status, 201);
      // Stored where kube stores it.
      await using raw = new EtcdStorage({ endpoints: [etcd.endpoint] });
      const kv = await raw.get("/registry/configmaps/default/stored");
      assert.equal(JSON.parse(kv!.value).metadata.name, "stored");
      s.child.kill("SIGTERM");
      assert.equal(await s.exited, 0);
    } finally {
      s.child.kill("SIGKILL");
    }
  });

  it("two processes with one prefix serve the same objects; the prefix is where keys live", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    const flags = [
      ...["--port", "0", "--controllers", "none", "--storage", "etcd"],
      ...["--etcd-endpoints", etcd.endpoint, "--etcd-prefix", "/tenant-a/registry"],
    ];
    const one = serve(flags);
    const two = serve(flags);
    try {
      const [u1, u2] = await Promise.all([one.listening, two.listening]);
      const created = await call(u1, "POST", cms, configMap("shared"));
      assert.equal(created.status, 201);
      const got = await call(u2, "GET", `${cms}/shared`);
      assert.equal(got.status, 200);
      assert.equal(got.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
      await using raw = new EtcdStorage({ endpoints: [etcd.endpoint] });
      const keys = (await raw.list("/tenant-a/registry/configmaps/")).kvs.map((kv) => kv.key);
      assert.deepEqual(keys, ["/tenant-a/registry/configmaps/default/shared"]);
      one.child.kill("SIGTERM");
      two.child.kill("SIGTERM");
      assert.deepEqual(await Promise.all([one.exited, two.exited]), [0, 0]);
    } finally {
      one.child.kill("SIGKILL");
      two.child.kill("SIGKILL");
    }
  });

  it("refuses etcd flags that cannot work with exit code 2 and a message", async () => {
    for (const [args, message] of [
      [["--storage", "etcd"], /needs --etcd-endpoints/],
      [["--etcd-endpoints", "http://127.0.0.1:2379"], /need --storage etcd/],
      [["--storage", "etcd", "--etcd-endpoints", "ftp://x"], /option endpoints must be/],
      [
        ["--storage", "etcd", "--etcd-endpoints", "http://127.0.0.1:1", "--etcd-prefix", "x"],
        /must start with "\/"/,
      ],
      [["--storage", "disk"], /must be "memory" or "etcd"/],
    ] as const) {
      const s = serve([...args]);
      assert.equal(await s.exited, 2, args.join(" "));
      assert.match(s.stderr(), message);
    }
  });
});
