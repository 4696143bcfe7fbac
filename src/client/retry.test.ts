import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, errors, InvalidOptionError } from "../core/index.ts";
import { resolveRetryOptions, retryDelayMs } from "./retry.ts";
import { TransportError } from "./transport.ts";

const policy = resolveRetryOptions();
const noJitter = () => 0;
const refused = new TransportError("GET", "/x", "ECONNREFUSED", "connect ECONNREFUSED");
const reset = new TransportError("GET", "/x", "ECONNRESET", "socket hang up");

describe("retryDelayMs", () => {
  it("retries reads on 429, 500, 502, 503, 504 and broken connections, with doubling delays", () => {
    for (const code of [429, 500, 502, 503, 504]) {
      const err = ApiError.of("X", "x", undefined, code);
      assert.equal(retryDelayMs(err, 0, true, policy, noJitter), 200, `code ${code}`);
      assert.equal(retryDelayMs(err, 2, true, policy, noJitter), 800);
    }
    assert.equal(retryDelayMs(reset, 1, true, policy, noJitter), 400);
    assert.equal(retryDelayMs(refused, 0, true, policy, noJitter), 200);
  });

  it("honours Retry-After, cut to maxRetryAfterMs", () => {
    assert.equal(retryDelayMs(errors.tooManyRequests("slow down", 3), 0, true, policy), 3000);
    assert.equal(retryDelayMs(errors.tooManyRequests("slow down", 3600), 0, true, policy), 60_000);
  });

  it("caps the exponential delay and adds at most 100 % jitter", () => {
    const err = errors.internal("boom");
    assert.equal(retryDelayMs(err, 4, true, policy, noJitter), 3200);
    assert.equal(
      retryDelayMs(err, 4, true, policy, () => 0.999999),
      3200 + 3200 * 0.999999,
    );
    assert.equal(
      retryDelayMs(err, 4, true, resolveRetryOptions({ maxRetries: 10 }), noJitter),
      3200,
    );
    assert.equal(
      retryDelayMs(err, 5, true, resolveRetryOptions({ maxRetries: 10 }), noJitter),
      5000,
    );
  });

  it("never retries other client errors", () => {
    for (const err of [
      errors.badRequest("x"),
      errors.notFound({ group: "", resource: "pods" }, "p"),
      errors.gone("old"),
    ]) {
      assert.equal(retryDelayMs(err, 0, true, policy), undefined);
    }
    assert.equal(retryDelayMs(new Error("bug"), 0, true, policy), undefined);
  });

  it("retries writes only when they cannot have taken effect: 429 or a refused connection", () => {
    assert.equal(retryDelayMs(errors.tooManyRequests("x", 1), 0, false, policy), 1000);
    assert.equal(retryDelayMs(refused, 0, false, policy, noJitter), 200);
    assert.equal(retryDelayMs(errors.internal("x"), 0, false, policy), undefined);
    assert.equal(retryDelayMs(errors.serviceUnavailable("x"), 0, false, policy), undefined);
    assert.equal(retryDelayMs(reset, 0, false, policy), undefined);
  });

  it("stops after maxRetries", () => {
    const p = resolveRetryOptions({ maxRetries: 2 });
    assert.notEqual(retryDelayMs(errors.internal("x"), 1, true, p), undefined);
    assert.equal(retryDelayMs(errors.internal("x"), 2, true, p), undefined);
    assert.equal(
      retryDelayMs(errors.internal("x"), 0, true, resolveRetryOptions({ maxRetries: 0 })),
      undefined,
    );
  });

  it("validates its options", () => {
    assert.throws(() => resolveRetryOptions({ maxRetries: -1 }), InvalidOptionError);
    assert.throws(() => resolveRetryOptions({ initialDelayMs: 1.5 }), /retry.initialDelayMs/);
  });
});
