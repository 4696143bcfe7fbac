/**
 * Conformance suites as data: a suite is a name and a list of cases, each a sentence, the
 * capabilities it needs, and a function that throws (a `node:assert` AssertionError) when the
 * subject breaks the behaviour. Nothing here imports a test runner, so any runner — node:test
 * (see `runConformanceWithNodeTest` in kontroller/testing/node-test), vitest, jest, or a plain
 * loop — runs the same cases: see {@link conformanceCases}.
 */

/** One behaviour a suite checks. */
export interface ConformanceCase<Subject, Capability extends string = never> {
  /** The behaviour, as a sentence: the test's title. */
  readonly name: string;
  /**
   * What the subject must support for the case to apply; a subject that does not declare all of
   * them gets the case as skipped, with the reason.
   * @default [] (the case applies to every subject)
   */
  readonly needs?: readonly Capability[];
  /** Checks the behaviour on the subject; throws when it is broken. */
  run(subject: Subject): Promise<void> | void;
}

/** A conformance suite: the behaviour every implementation of one seam keeps. */
export interface ConformanceSuite<Subject, Capability extends string = never> {
  /** The seam, e.g. "work queue conformance". */
  readonly name: string;
  readonly cases: readonly ConformanceCase<Subject, Capability>[];
}

/** What every subject of a suite declares. */
export interface ConformanceSubject<Capability extends string = never> {
  /** The implementation under test, as the test titles name it. */
  readonly name: string;
  /**
   * The optional capabilities the implementation has; the cases needing any other are reported
   * as skipped, with the reason — never silently dropped.
   * @default [] (only the cases that need no capability run)
   */
  readonly supports?: readonly Capability[];
}

/** A case bound to a subject, ready for any test runner. */
export interface PlannedCase {
  readonly name: string;
  /** Why the case does not apply to the subject; undefined when it runs. */
  readonly skip: string | undefined;
  /** Runs the case; rejects when the subject breaks the behaviour. */
  run(): Promise<void>;
}

/**
 * The suite's cases bound to `subject`, in order: those needing a capability the subject does
 * not declare come with `skip` set to the reason, for the runner to report as skipped. With
 * vitest (with jest, `(c.skip === undefined ? it : it.skip)(c.name, c.run)`):
 *
 * ```ts
 * import { describe, it } from "vitest";
 * import { conformanceCases, type QueueSubject, queueConformance } from "kontroller/testing";
 * const subject: QueueSubject = { name: "MyQueue", supports: [], make: ({ clock }) => new MyQueue({ clock }) };
 * describe(subject.name, () => {
 *   for (const c of conformanceCases(queueConformance, subject)) it.skipIf(c.skip)(c.name, c.run);
 * });
 * ```
 */
export function conformanceCases<
  Subject extends ConformanceSubject<Capability>,
  Capability extends string,
>(suite: ConformanceSuite<Subject, Capability>, subject: Subject): PlannedCase[] {
  const supports = new Set<string>(subject.supports ?? []);
  return suite.cases.map((c) => {
    const missing = (c.needs ?? []).filter((need) => !supports.has(need));
    return {
      name: c.name,
      skip:
        missing.length === 0
          ? undefined
          : `not applicable: ${subject.name} does not declare ${missing.join(", ")} in supports`,
      run: async () => {
        await c.run(subject);
      },
    };
  });
}

/** Lets promise continuations run: one turn of the event loop. Not a sleep. */
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Watches a promise without awaiting it. */
export function track<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => {
      state.settled = true;
      state.value = value;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}
