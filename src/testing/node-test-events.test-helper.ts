/**
 * Run by conformance.test.ts in a child process (node:test refuses `run()` inside a test file):
 * runs node-test.test-helper.ts with node:test's `run()` and prints each test's result as a JSON
 * line `{ type, nesting, name, skip }`.
 */
import { run } from "node:test";

const files = [new URL("./node-test.test-helper.ts", import.meta.url).pathname];
for await (const event of run({ files })) {
  if (event.type === "test:pass" || event.type === "test:fail") {
    const { nesting, name, skip } = event.data;
    console.log(JSON.stringify({ type: event.type, nesting, name, skip }));
  }
}
