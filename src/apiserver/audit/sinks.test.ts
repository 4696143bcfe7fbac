import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { auditEventJson, microTime } from "./event-json.ts";
import { FileAuditSink, MemoryAuditSink } from "./sinks.ts";
import type { AuditEvent } from "./types.ts";

const dir = await mkdtemp(join(tmpdir(), "kontroller-audit-sink-"));
after(() => rm(dir, { recursive: true, force: true }));

function event(id: string, uri = "/api"): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: id,
    stage: "ResponseComplete",
    requestURI: uri,
    verb: "get",
    user: {},
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
  };
}

describe("auditEventJson", () => {
  it("escapes as Go's JSON encoder does, so the line is kube's byte for byte", () => {
    const line = auditEventJson(event("a", "/api/v1/pods?labelSelector=a<b&x>y\u2028"));
    assert.match(
      line,
      /"requestURI":"\/api\/v1\/pods\?labelSelector=a\\u003cb\\u0026x\\u003ey\\u2028"/,
    );
    assert.deepEqual(JSON.parse(line).requestURI, "/api/v1/pods?labelSelector=a<b&x>y\u2028");
  });

  it("writes MicroTime with six fractional digits", () => {
    assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), "2026-01-02T03:04:05.678000Z");
    assert.equal(
      microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678) + 0.123),
      "2026-01-02T03:04:05.678123Z",
    );
  });
});

describe("FileAuditSink", () => {
  it("appends one event a line, in order, to a file it makes (0600) in a folder it makes", async () => {
    const path = join(dir, "new", "deeper", "audit.log");
    const sink = new FileAuditSink({ path });
    sink.processEvent(event("before-start")); // held until the file is open
    await sink.start();
    for (let i = 0; i < 500; i++) sink.processEvent(event(`e${i}`));
    await sink.flush();
    const ids = (await readFile(path, "utf8"))
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l).auditID);
    assert.deepEqual(ids, ["before-start", ...Array.from({ length: 500 }, (_, i) => `e${i}`)]);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    sink.processEvent(event("last"));
    await sink.close();
    sink.processEvent(event("after-close"));
    assert.equal(sink.dropped, 1);
    assert.match(await readFile(path, "utf8"), /"auditID":"last"[^\n]*\n$/);
    const again = new FileAuditSink({ path });
    await again.start();
    again.processEvent(event("appended"));
    await again.close();
    assert.match(await readFile(path, "utf8"), /"auditID":"last".*\n.*"auditID":"appended"/);
  });

  it("refuses to start on a path it cannot open, saying which and why", async () => {
    const file = join(dir, "plain-file");
    await writeFile(file, "");
    const sink = new FileAuditSink({ path: join(file, "audit.log") });
    await assert.rejects(sink.start(), {
      message: new RegExp(
        `^audit log ${file}/audit\\.log: cannot open for writing: .*(EEXIST|ENOTDIR)`,
      ),
    });
  });

  it("reports a failed write and goes on taking events", {
    skip: !existsSync("/dev/full"),
  }, async () => {
    const failures: [string, number][] = [];
    const sink = new FileAuditSink({
      path: "/dev/full", // every write fails: no space left on device
      onError: (err, lost) => failures.push([err.message, lost]),
    });
    await sink.start();
    sink.processEvent(event("a"));
    sink.processEvent(event("b"));
    await sink.flush();
    sink.processEvent(event("c"));
    await sink.close();
    assert.ok(failures.length >= 2);
    assert.ok(failures.every(([message]) => /ENOSPC/.test(message)));
    assert.equal(
      failures.reduce((n, [, lost]) => n + lost, 0),
      3,
    );
    assert.equal(sink.failed, 3);
  });

  it("drops events past its buffer rather than growing without end", async () => {
    const path = join(dir, "small.log");
    const sink = new FileAuditSink({ path, maxBufferBytes: 1000 });
    for (let i = 0; i < 10; i++) sink.processEvent(event(`e${i}`)); // not started: all held
    assert.ok(sink.dropped > 0 && sink.dropped < 10);
    await sink.start();
    await sink.close();
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    assert.equal(lines.length, 10 - sink.dropped);
  });

  it("checks its options", () => {
    assert.throws(
      () => new FileAuditSink({ path: "" }),
      /FileAuditSink: option path must be the path of a file, got ""/,
    );
    assert.throws(() => new FileAuditSink({ path: "x", maxBufferBytes: 0 }), {
      name: "InvalidOptionError",
    });
  });
});

describe("MemoryAuditSink", () => {
  it("keeps events in order and resolves a wait with the first matching one, past or to come", async () => {
    const sink = new MemoryAuditSink();
    sink.processEvent(event("a"));
    assert.equal((await sink.waitFor((e) => e.auditID === "a")).auditID, "a");
    const waiting = sink.waitFor((e) => e.auditID === "b");
    sink.processEvent(event("b"));
    assert.equal((await waiting).auditID, "b");
    assert.deepEqual(
      sink.events().map((e) => e.auditID),
      ["a", "b"],
    );
    const stop = new AbortController();
    const never = sink.waitFor(() => false, { signal: stop.signal });
    stop.abort(new Error("stopped"));
    await assert.rejects(never, { message: "stopped" });
    sink.clear();
    assert.deepEqual(sink.events(), []);
  });
});
