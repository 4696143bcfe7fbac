// The layer table, enforced. Each folder under src/ is a layer; a layer
// imports only the layers its row allows, and only through that folder's index.ts.
// `npm run lint` runs this; test/layers.test.ts proves that a violating import fails it.

/** Layer → the layers it may import (besides itself). */
const LAYERS = {
  core: [],
  resources: ["core"],
  workqueue: ["core"],
  client: ["core", "resources"],
  cache: ["core", "resources", "client"],
  // Leader election needs core and client; the Lease type lives in resources, which client builds on.
  leaderelection: ["core", "resources", "client"],
  // metrics implements core's metrics interfaces; it imports core only, type-only imports included.
  metrics: ["core"],
  // The controller runtime serves /metrics and /healthz through metrics' HealthServer.
  controller: ["core", "resources", "workqueue", "client", "cache", "leaderelection", "metrics"],
  // The API server never imports the client: the two meet only on the wire.
  apiserver: ["core", "resources"],
  controlplane: [
    "core",
    "resources",
    "workqueue",
    "client",
    "cache",
    "leaderelection",
    "metrics",
    "controller",
  ],
  testing: [
    "core",
    "resources",
    "workqueue",
    "client",
    "cache",
    "leaderelection",
    "metrics",
    "controller",
    "apiserver",
    "controlplane",
  ],
  cli: [
    "core",
    "resources",
    "workqueue",
    "client",
    "cache",
    "leaderelection",
    "metrics",
    "controller",
    "apiserver",
    "controlplane",
    "testing",
  ],
};

const ALL = Object.keys(LAYERS);

const TEST_FILE = "\\.test\\.ts$";

/**
 * One rule per layer for its modules, and one for its co-located tests, which may also use
 * kontroller/testing (FakeClock, the embedded server, conformance suites).
 */
const layerRules = Object.entries(LAYERS).flatMap(([layer, allowed]) =>
  [false, true].map((tests) => {
    const ok = tests ? [...allowed, "testing"] : allowed;
    const forbidden = ALL.filter((other) => other !== layer && !ok.includes(other));
    return {
      name: `layer-${layer}${tests ? "-tests" : ""}`,
      comment: `src/${layer}${tests ? " tests" : ""} may import only: ${ok.join(", ") || "nothing"} (the layer table)`,
      severity: "error",
      from: tests
        ? { path: `^src/${layer}/.*${TEST_FILE}` }
        : { path: `^src/${layer}/`, pathNot: TEST_FILE },
      to: { path: `^src/(${forbidden.join("|") || "$^"})/` },
    };
  }),
);

/**
 * The API server's own sub-layers, in order: each imports only those before it (its tests too,
 * besides kontroller/testing), type-only imports included. `patch` is pure and imports none.
 * The API server's index.ts, its public face, may import any of them.
 */
const APISERVER_SUBLAYERS = [
  "storage",
  "patch",
  "watchcache",
  "registry",
  "managedfields",
  "crd",
  "auth",
  "tls",
  "audit",
  "http",
];

const apiserverRules = APISERVER_SUBLAYERS.slice(0, -1).map((sub, i) => {
  const later = APISERVER_SUBLAYERS.slice(i + 1);
  return {
    name: `apiserver-${sub}`,
    comment: `src/apiserver/${sub} may import only the API server's sub-layers before it: ${APISERVER_SUBLAYERS.slice(0, i).join(", ") || "none"}`,
    severity: "error",
    from: { path: `^src/apiserver/${sub}/` },
    to: { path: `^src/apiserver/(${later.join("|")})/` },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    ...apiserverRules,
    {
      name: "apiserver-no-unknown-sublayer",
      comment: `Every folder under src/apiserver is a sub-layer: ${APISERVER_SUBLAYERS.join(", ")}`,
      severity: "error",
      from: { path: `^src/apiserver/(?!(${APISERVER_SUBLAYERS.join("|")})/)[^/]+/` },
      to: {},
    },
    {
      name: "through-index-only",
      comment:
        "Another layer is imported only through its index.ts (and testing's node:test adapter, an entry point of its own; and core's internal.ts, its unpublished entry for the layers)",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: {
        path: "^src/[^/]+/",
        pathNot: [
          "^src/$1/",
          "^src/[^/]+/index\\.ts$",
          "^src/testing/node-test\\.ts$",
          "^src/core/internal\\.ts$",
        ],
      },
    },
    {
      name: "own-index-not-from-inside",
      comment: "Inside a layer, import the sibling module itself, not the layer's index.ts",
      severity: "error",
      from: { path: "^src/([^/]+)/", pathNot: "^src/[^/]+/index\\.ts$" },
      to: { path: "^src/$1/index\\.ts$" },
    },
    {
      name: "by-package-name",
      comment: "examples, benchmarks and black-box tests import the package by its own name",
      severity: "error",
      from: { path: "^(examples|bench|test)/" },
      to: {
        path: "^src/",
        // The benchmarks of core's unpublished data structures import them from the sources.
        pathNot: "^src/core/internal\\.ts$",
        dependencyTypes: ["local"],
      },
    },
    {
      name: "internals-from-benchmarks-only",
      comment:
        "core's internal.ts is not published: only the layers import it, and the benchmarks that measure what it holds",
      severity: "error",
      from: { path: "^(examples|test)/" },
      to: { path: "^src/core/internal\\.ts$" },
    },
    {
      name: "no-unknown-layer",
      comment: `Every folder under src/ is a layer: ${ALL.join(", ")}`,
      severity: "error",
      from: { path: `^src/(?!(${ALL.join("|")})/)` },
      to: {},
    },
    {
      name: "no-circular",
      comment:
        "No import cycles, type-only imports included: a cycle of types is a seam drawn both ways; move the shared types into a module of their own",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "kubernetes-types ships only .d.ts files; tsc checks those type-only imports",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^kubernetes-types/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|test/fixtures)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["kontroller-source", "import", "types", "default"],
      extensions: [".ts", ".js", ".json"],
    },
  },
};
