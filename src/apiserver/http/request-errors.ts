import { ApiError, errors } from "../../core/index.ts";

/** 404 for a path the server does not serve, worded as kube's. */
export function notFound(): never {
  const e = errors.notFound({ group: "", resource: "" }, "");
  e.status.message = "the server could not find the requested resource";
  e.status.details = {};
  throw e;
}

/** 405 for a method the resource (`what`) does not allow, worded as kube's. */
export function methodNotAllowed(method: string, what: string): never {
  throw errors.methodNotAllowed(
    `the server does not allow this method on the requested resource: ${method} is not supported on ${what}`,
  );
}

/**
 * 405 for a method a handled resource or subresource does not answer (a GET of a review, a PUT
 * to `pods/{name}/exec`), worded as kube's router words it.
 */
export function methodNotSupported(): never {
  throw ApiError.of(
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}
