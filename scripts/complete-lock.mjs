#!/usr/bin/env node
/**
 * Completes package-lock.json with the platform-specific optional packages that this
 * workplace's npm registry mirror does not serve (it answers 404 for, e.g.,
 * @biomejs/cli-darwin-arm64). `npm install` leaves such packages out of the lock, and then
 * `npm ci` refuses the lock as out of sync. An entry with `os`/`cpu`/`libc` and `optional: true`
 * lets `npm ci` skip the package on this platform without fetching it.
 *
 * Run it after every `npm install` that changes the lock: `node scripts/complete-lock.mjs`.
 * Idempotent. `--check` only reports (exit 1 when entries are missing); a test runs that.
 */
import { readFileSync, writeFileSync } from "node:fs";

const PLATFORM =
  /-(android|darwin|linux|win32|freebsd|openbsd|sunos|aix)-(arm64|x64|ia32|arm|ppc64|s390x|riscv64)(-(musl|gnu|msvc))?$/;

const check = process.argv.includes("--check");
const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const missing = [];
for (const meta of Object.values(lock.packages)) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] !== undefined) continue;
    const m = PLATFORM.exec(dep);
    if (m === null) {
      process.stderr.write(
        `complete-lock: cannot tell the platform of ${dep}; add its entry by hand\n`,
      );
      process.exitCode = 1;
      continue;
    }
    missing.push(dep);
    lock.packages[key] = {
      version: range,
      cpu: [m[2]],
      os: [m[1]],
      ...(m[4] === "musl" ? { libc: ["musl"] } : {}),
      optional: true,
    };
  }
}
if (check) {
  if (missing.length > 0) {
    process.stderr.write(
      `complete-lock: package-lock.json lacks ${missing.join(", ")}; run node scripts/complete-lock.mjs\n`,
    );
    process.exitCode = 1;
  }
} else if (missing.length > 0) {
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`complete-lock: added ${missing.length} entries\n`);
}
