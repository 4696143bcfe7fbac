import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ApiError,
  errnoCode,
  errorMessage,
  errors,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isTerminal,
  isTooManyRequests,
  statusCode,
  TerminalError,
} from "./errors.ts";
import { isStatus } from "./status.ts";

const cm = { group: "", resource: "configmaps" };
const users = { group: "example.com", resource: "users" };

describe("ApiError", () => {
  it("builds kube-apiserver's messages and codes", () => {
    const table: [ApiError, number, string, string][] = [
      [errors.notFound(cm, "x"), 404, "NotFound", 'configmaps "x" not found'],
      [errors.notFound(users, "x"), 404, "NotFound", 'users.example.com "x" not found'],
      [errors.alreadyExists(cm, "x"), 409, "AlreadyExists", 'configmaps "x" already exists'],
      [
        errors.alreadyExists(cm, "x", true),
        409,
        "AlreadyExists",
        'object is being deleted: configmaps "x" already exists',
      ],
      [
        errors.staleResourceVersion(cm, "x"),
        409,
        "Conflict",
        'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
      ],
      [
        errors.expired("too old resource version: 5 (120)"),
        410,
        "Expired",
        "too old resource version: 5 (120)",
      ],
      [errors.gone("gone"), 410, "Gone", "gone"],
      [errors.badRequest("bad"), 400, "BadRequest", "bad"],
      [errors.methodNotAllowed("no"), 405, "MethodNotAllowed", "no"],
      [errors.unsupportedMediaType("no"), 415, "UnsupportedMediaType", "no"],
      [errors.requestEntityTooLarge("big"), 413, "RequestEntityTooLarge", "big"],
      [errors.unauthorized(), 401, "Unauthorized", "Unauthorized"],
      [errors.tooManyRequests("slow down", 3), 429, "TooManyRequests", "slow down"],
      [errors.internal("boom"), 500, "InternalError", "Internal error occurred: boom"],
      [errors.serviceUnavailable("later"), 503, "ServiceUnavailable", "later"],
      [
        errors.timeout("Too large resource version", 1, "ResourceVersionTooLarge"),
        504,
        "Timeout",
        "Too large resource version",
      ],
      [
        errors.forbidden(
          cm,
          "x",
          "unable to create new content in namespace prod because it is being terminated",
        ),
        403,
        "Forbidden",
        'configmaps "x" is forbidden: unable to create new content in namespace prod because it is being terminated',
      ],
    ];
    for (const [err, code, reason, message] of table) {
      assert.equal(err.code, code, message);
      assert.equal(err.reason, reason);
      assert.equal(err.message, message);
      assert.equal(err.status.status, "Failure");
      assert.ok(isStatus(err.status));
      assert.ok(err instanceof Error);
    }
  });

  it("lists invalid causes with their field paths", () => {
    const one = errors.invalid("ConfigMap", "", "x", [
      { reason: "FieldValueRequired", field: "metadata.name", message: "Required value" },
    ]);
    assert.equal(one.message, 'ConfigMap "x" is invalid: metadata.name: Required value');
    const two = errors.invalid("User", "example.com", "u", [
      { reason: "FieldValueInvalid", field: "spec.a", message: "Invalid value: 1" },
      { reason: "FieldValueRequired", field: "spec.b", message: "Required value" },
    ]);
    assert.equal(
      two.message,
      'User.example.com "u" is invalid: [spec.a: Invalid value: 1, spec.b: Required value]',
    );
    assert.equal(two.code, 422);
    assert.deepEqual(
      two.details?.causes?.map((c) => c.field),
      ["spec.a", "spec.b"],
    );
  });

  it("carries a continue token on an expired list and a retry-after on 429", () => {
    assert.equal(errors.expired("old", "tok").status.metadata.continue, "tok");
    assert.equal(errors.tooManyRequests("x", 7).details?.retryAfterSeconds, 7);
  });
});

describe("error predicates", () => {
  it("recognise each reason and nothing else", () => {
    const notFound = errors.notFound(cm, "x");
    const exists = errors.alreadyExists(cm, "x");
    const conflict = errors.staleResourceVersion(cm, "x");
    const expired = errors.expired("old");
    const gone = errors.gone("old");
    const invalid = errors.invalid("ConfigMap", "", "x", []);
    const slow = errors.tooManyRequests("x", 1);
    const plain = new Error("nope");
    assert.deepEqual(
      [notFound, exists, conflict, expired, gone, invalid, slow, plain, undefined].map((e) => [
        isNotFound(e),
        isAlreadyExists(e),
        isConflict(e),
        isGone(e),
        isInvalid(e),
        isTooManyRequests(e),
      ]),
      [
        [true, false, false, false, false, false],
        [false, true, false, false, false, false],
        [false, false, true, false, false, false],
        [false, false, false, true, false, false],
        [false, false, false, true, false, false],
        [false, false, false, false, true, false],
        [false, false, false, false, false, true],
        [false, false, false, false, false, false],
        [false, false, false, false, false, false],
      ],
    );
  });

  it("fall back to the code when a server sends no reason", () => {
    const bare = new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      code: 404,
    });
    assert.equal(isNotFound(bare), true);
    assert.equal(bare.reason, "Unknown");
    assert.equal(bare.message, "HTTP 404");
    const gone = new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      code: 410,
    });
    assert.equal(isGone(gone), true);
  });

  it("find a TerminalError through causes", () => {
    const terminal = new TerminalError("bad spec");
    assert.equal(isTerminal(terminal), true);
    assert.equal(isTerminal(new Error("wrapped", { cause: terminal })), true);
    assert.equal(isTerminal(new Error("plain")), false);
    assert.equal(isTerminal("a string"), false);
  });
});

describe("reading a thrown value without a cast", () => {
  it("errorMessage gives an error's message, or the value as a string", () => {
    assert.equal(errorMessage(new Error("boom")), "boom");
    assert.equal(errorMessage(errors.notFound(cm, "x")), 'configmaps "x" not found');
    assert.equal(errorMessage({ message: "from a worker" }), "from a worker");
    assert.equal(errorMessage("a string"), "a string");
    assert.equal(errorMessage(undefined), "undefined");
    assert.equal(errorMessage({ message: 42 }), "[object Object]");
  });

  it("errnoCode gives a system error's code, and nothing for other values", () => {
    const enoent = Object.assign(new Error("no such file"), { code: "ENOENT" });
    assert.equal(errnoCode(enoent), "ENOENT");
    assert.equal(errnoCode({ code: "ECONNRESET" }), "ECONNRESET");
    assert.equal(errnoCode(errors.notFound(cm, "x")), undefined);
    assert.equal(errnoCode(new Error("plain")), undefined);
    assert.equal(errnoCode(null), undefined);
    assert.equal(errnoCode("ENOENT"), undefined);
  });

  it("statusCode gives an ApiError's HTTP code, and nothing for other values", () => {
    assert.equal(statusCode(errors.notFound(cm, "x")), 404);
    assert.equal(statusCode(errors.expired("too old")), 410);
    assert.equal(statusCode({ code: 404 }), undefined);
    assert.equal(statusCode(new Error("plain")), undefined);
  });
});
