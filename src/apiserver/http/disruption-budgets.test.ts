import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../core/index.ts";
import {
  type Budget,
  budgetsOf,
  canIgnoreBudgets,
  decrementBudget,
  enforcesResourceVersion,
  unreadyMayGo,
} from "./disruption-budgets.ts";

const NOW = "2026-01-01T00:00:00Z";

function budget(status: Budget["status"], generation = 1, spec: Budget["spec"] = {}): Budget {
  return { metadata: { name: "b", namespace: "ns", generation }, spec, status };
}

/** The status of the ApiError `fn` throws. */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err.status;
  }
  return assert.fail("no refusal");
}

describe("disruption budget rules", () => {
  it("skips the budgets of pods not running or being deleted, as kube's canIgnorePDB", () => {
    const table: [Record<string, unknown>, boolean, boolean][] = [
      [{ phase: "Pending" }, true, true],
      [{ phase: "Succeeded" }, true, false],
      [{ phase: "Failed" }, true, false],
      [{ phase: "Running" }, false, true],
      [{}, false, true],
    ];
    for (const [status, ignores, enforces] of table) {
      assert.equal(canIgnoreBudgets({ status }), ignores, JSON.stringify(status));
      assert.equal(enforcesResourceVersion({ status }), enforces, JSON.stringify(status));
    }
    const deleting = { metadata: { deletionTimestamp: NOW }, status: { phase: "Running" } };
    assert.equal(canIgnoreBudgets(deleting), true);
    assert.equal(enforcesResourceVersion(deleting), false);
  });

  it("matches budgets by selector in the pod's namespace; no selector matches nothing", () => {
    const pod = { metadata: { namespace: "ns", labels: { app: "a" } } };
    const of = (namespace: string, selector: unknown) =>
      ({ metadata: { name: "x", namespace }, spec: { selector } }) as Budget;
    const matching = budgetsOf(
      [
        of("ns", { matchLabels: { app: "a" } }),
        of("ns", {}),
        of("ns", undefined),
        of("other", { matchLabels: { app: "a" } }),
        of("ns", { matchLabels: { app: "b" } }),
        of("ns", { matchExpressions: [{ key: "app", operator: "Bogus" }] }),
      ],
      pod,
    );
    assert.deepEqual(
      matching.map((b) => b.spec?.selector),
      [{ matchLabels: { app: "a" } }, {}],
    );
  });

  it("lets unready pods go under AlwaysAllow, or where the healthy pods are there", () => {
    assert.equal(unreadyMayGo(budget({}, 1, { unhealthyPodEvictionPolicy: "AlwaysAllow" })), true);
    assert.equal(unreadyMayGo(budget({ currentHealthy: 2, desiredHealthy: 2 })), true);
    assert.equal(unreadyMayGo(budget({ currentHealthy: 1, desiredHealthy: 2 })), false);
    assert.equal(unreadyMayGo(budget({ currentHealthy: 0, desiredHealthy: 0 })), false);
  });

  it("takes one disruption, lists the pod and marks DisruptionAllowed False when none is left", () => {
    const two = decrementBudget(
      budget({ observedGeneration: 1, disruptionsAllowed: 2, disruptedPods: { old: NOW } }),
      "p",
      NOW,
    );
    assert.deepEqual(two, {
      observedGeneration: 1,
      disruptionsAllowed: 1,
      disruptedPods: { old: NOW, p: NOW },
    });
    const last = decrementBudget(
      budget({
        observedGeneration: 1,
        disruptionsAllowed: 1,
        conditions: [
          {
            type: "DisruptionAllowed",
            status: "True",
            reason: "SufficientPods",
            message: "ok",
            lastTransitionTime: "2020-01-01T00:00:00Z",
          },
        ],
      }),
      "p",
      NOW,
    );
    assert.deepEqual(last.conditions, [
      {
        type: "DisruptionAllowed",
        status: "False",
        reason: "InsufficientPods",
        message: "",
        lastTransitionTime: NOW,
        observedGeneration: 1,
      },
    ]);
  });

  it("refuses as kube does: stale status 429 (10 s), negative 403, none left 429", () => {
    const stale = refusal(() =>
      decrementBudget(budget({ observedGeneration: 1, disruptionsAllowed: 1 }, 2), "p", NOW),
    );
    assert.equal(stale.code, 429);
    assert.equal(stale.details?.retryAfterSeconds, 10);
    const negative = refusal(() =>
      decrementBudget(budget({ observedGeneration: 1, disruptionsAllowed: -1 }), "p", NOW),
    );
    assert.equal(negative.code, 403);
    assert.equal(
      negative.message,
      'poddisruptionbudget.policy "b" is forbidden: pdb disruptions allowed is negative',
    );
    const none = refusal(() =>
      decrementBudget(
        budget({ observedGeneration: 1, currentHealthy: 1, desiredHealthy: 2 }),
        "p",
        NOW,
      ),
    );
    assert.equal(none.code, 429);
    assert.equal(none.details?.retryAfterSeconds, undefined);
    assert.deepEqual(none.details?.causes, [
      {
        reason: "DisruptionBudget",
        message: "The disruption budget b needs 2 healthy pods and has 1 currently",
      },
    ]);
  });
});
