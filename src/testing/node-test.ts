/**
 * kontroller/testing/node-test — runs the conformance suites of kontroller/testing with
 * node:test. A module of its own, so that importing the suites does not import node:test.
 */
import { describe, it } from "node:test";
import { type ConformanceSubject, type ConformanceSuite, conformanceCases } from "./conformance.ts";

/**
 * Registers `suite` against `subject` as one node:test `describe` block (titled with the suite
 * and the subject) holding one test per case. A case needing a capability the subject does not
 * declare in `supports` is reported as skipped, with the reason.
 */
export function runConformanceWithNodeTest<
  Subject extends ConformanceSubject<Capability>,
  Capability extends string,
>(suite: ConformanceSuite<Subject, Capability>, subject: Subject): void {
  describe(`${suite.name}: ${subject.name}`, () => {
    for (const c of conformanceCases(suite, subject)) {
      it(c.name, (t) => (c.skip === undefined ? c.run() : t.skip(c.skip)));
    }
  });
}
