import { storageConformance } from "../../testing/index.ts";
import { runConformanceWithNodeTest } from "../../testing/node-test.ts";
import { MemoryStorage } from "./memory-storage.ts";

runConformanceWithNodeTest(storageConformance, {
  name: "MemoryStorage",
  make: async () => new MemoryStorage(),
});
