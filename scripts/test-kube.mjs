// npm run test:kube — the black-box suites again, on a real kube-apiserver
// (KONTROLLER_TEST_BACKEND=kube-apiserver): every test file under the suites' folders that
// reaches a test server, i.e. that calls startTestServer() itself or through the local modules
// it imports. The rest (unit tests beside them) run the same on either backend and are left to
// `npm test`. Arguments are passed on to `node --test`.
import { spawnSync } from "node:child_process";
import { globSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const SUITES = [
  "src/{client,controller,controlplane,leaderelection}/**/*.test.ts",
  "test/{cache,controlplane,examples,leaderelection,resources,testing}/**/*.test.ts",
  "test/apiserver/{kubectl,kubectl-*,client-node,builtin-resources,workload-defaults,scale,defaulted-ownership,service-allocation,metrics,*-kinds,pod-defaults,hpa-versions,access-reviews,token-request,kubelet-subresources,table-columns-*,delete-propagation,body-type,event-fields,node-fields,custom-resource-encoding,discovery-fidelity,name-rules,csr-requester,strategic-merge-order,pod-subresources,pod-eviction}.test.ts",
];

const reaches = new Map();
/** True where `file`, or a local module it imports (transitively), calls startTestServer. */
function reachesServer(file, seen = new Set()) {
  if (reaches.has(file)) return reaches.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  let found = /\bstartTestServer\(/.test(text);
  for (const [, spec] of text.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)) {
    if (found) break;
    found = reachesServer(normalize(join(dirname(file), spec)), seen);
  }
  reaches.set(file, found);
  return found;
}

const files = SUITES.flatMap((p) => globSync(p))
  .filter((f) => reachesServer(f))
  .sort();
const result = spawnSync(
  process.execPath,
  [
    "--conditions=kontroller-source",
    "--test",
    "--test-concurrency=2",
    "--test-timeout=120000",
    ...process.argv.slice(2),
    ...files,
  ],
  { stdio: "inherit", env: { ...process.env, KONTROLLER_TEST_BACKEND: "kube-apiserver" } },
);
process.exit(result.status ?? 1);
