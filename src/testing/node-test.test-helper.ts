/**
 * Run by conformance.test.ts through node:test's `run()`: the work-queue suite with the node:test
 * adapter against a queue that supports everything, a plain Queue, and a queue that loses an item.
 */
import { runConformanceWithNodeTest } from "./node-test.ts";
import { queueConformance } from "./queue-conformance.ts";
import { everything, losing, plain } from "./queue-subjects.test-helper.ts";

for (const subject of [everything, plain, losing]) {
  runConformanceWithNodeTest(queueConformance, subject);
}
