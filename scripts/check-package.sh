#!/usr/bin/env bash
# The published package works, as a user gets it: builds, packs the tarball, installs it into an
# empty project (its dependencies from the registry), then there
#   - imports every entry point of package.json "exports" at run time,
#   - runs `npx kontroller demo --quiet --once` (it stops by itself once the example controllers
#     have reconciled the demo's objects),
#   - type-checks a TypeScript file importing every entry point (tsc --strict, nodenext).
# Exits non-zero on any failure and removes its temporary folders.
#
#   scripts/check-package.sh [--no-build]   (--no-build: dist/ is fresh, e.g. CI's build step)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# The pinned node (the "node" dev dependency) runs everything, npm and the installed bin too.
export PATH="$root/node_modules/.bin:$PATH"
work=$(mktemp -d "${TMPDIR:-/tmp}/kontroller-package-XXXXXX")
tsc_pid=""
trap '[[ -n $tsc_pid ]] && kill "$tsc_pid" 2>/dev/null; rm -rf "$work"' EXIT
# The demo's own temporary folders go under ours, and go with it.
export TMPDIR="$work"
step() { printf "check-package [%3ss]: %s\n" "$SECONDS" "$1"; }

cd "$root"
if [[ ${1:-} != "--no-build" ]]; then
  step "npm run build"
  npm run build --silent
fi

step "npm pack"
tarball=$(npm pack --json --pack-destination "$work" | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s)[0].filename));')
# What the check imports: every entry point but package.json, and the matching dev versions.
entries=$(node -p 'Object.keys(require("./package.json").exports).filter((k) => k !== "./package.json").map((k) => "kontroller" + k.slice(1)).join(" ")')
typescript=$(node -p 'require("./package.json").devDependencies.typescript')
types_node=$(node -p 'require("./package.json").devDependencies["@types/node"]')

step "install $tarball into an empty project"
project="$work/project"
mkdir "$project"
cd "$project"
npm init -y >/dev/null
npm pkg set type=module
# kontroller/client's types use @kubernetes/client-node's KubeConfig, whose typings import "ws"
# through isomorphic-ws: a project that type-checks libraries needs @types/ws for them.
npm install --no-audit --no-fund --loglevel=error "$work/$tarball" \
  "typescript@$typescript" "@types/node@$types_node" "@types/ws@8"

step "import every entry point: $entries"
# import * as m0 from "kontroller/core"; … export { m0, … };
node -e '
  const entries = process.argv.slice(1);
  for (const [i, e] of entries.entries()) console.log(`import * as m${i} from "${e}";`);
  console.log(`export { ${entries.map((_, i) => `m${i}`).join(", ")} };`);' $entries >check.ts
cp check.ts check.mjs
node check.mjs

# The type-check (libraries included: no skipLibCheck) is the slow step: it runs meanwhile.
step "tsc --noEmit --strict --module nodenext --moduleResolution nodenext check.ts (in the background)"
node_modules/.bin/tsc --noEmit --strict --module nodenext --moduleResolution nodenext check.ts \
  >"$work/tsc.log" 2>&1 &
tsc_pid=$!

step "npx kontroller demo --quiet --once"
out=$(timeout 180 npx --no-install kontroller demo --quiet --once)
printf '%s\n' "$out" | sed 's/^/  | /'
if ! grep -q "^demo stopped$" <<<"$out"; then
  step "the demo did not stop cleanly"
  exit 1
fi

step "waiting for tsc"
if ! wait "$tsc_pid"; then
  tsc_pid=""
  cat "$work/tsc.log"
  step "the entry points do not type-check"
  exit 1
fi
tsc_pid=""

step "ok"
