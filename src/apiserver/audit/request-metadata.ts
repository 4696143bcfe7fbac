import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import type { AccessAttributes } from "../auth/authorizer.ts";
import type { UserInfo } from "../auth/user.ts";
import type { AuditObjectReference, AuditUser } from "./types.ts";

/*
 * What an audit event says of a request before it is served: who (kube's `UserInfo`, empty
 * fields left out, extra keys sorted as Go writes a map), from where (kube's SourceIPs), with
 * what (the User-Agent, cut at 1024 characters), on what (the object reference).
 */

const MAX_USER_AGENT = 1024;

/** A user as an event writes it: username, uid, groups, extra — each only where it has one. */
export function auditUser(user: UserInfo | undefined): AuditUser {
  if (user === undefined) return {};
  const extraKeys = Object.keys(user.extra ?? {}).sort();
  return {
    ...(user.username === "" ? {} : { username: user.username }),
    ...(user.uid === undefined || user.uid === "" ? {} : { uid: user.uid }),
    ...(user.groups.length === 0 ? {} : { groups: [...user.groups] }),
    ...(extraKeys.length === 0
      ? {}
      : { extra: Object.fromEntries(extraKeys.map((k) => [k, [...user.extra![k]!]])) }),
  };
}

/** The User-Agent, cut as kube cuts it. */
export function auditUserAgent(req: IncomingMessage): string | undefined {
  const ua = req.headers["user-agent"];
  if (ua === undefined || ua === "") return undefined;
  return ua.length > MAX_USER_AGENT ? `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED` : ua;
}

/**
 * Where a request came from, as kube's `SourceIPs`: the valid addresses of X-Forwarded-For,
 * X-Real-Ip where not already listed, then the connection's address unless it is the last one.
 */
export function sourceIps(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const forwarded = header(req, "x-forwarded-for");
  if (forwarded !== undefined) {
    for (const part of forwarded.split(",")) {
      const ip = canonicalIp(part.trim());
      if (ip !== undefined) ips.push(ip);
    }
  }
  const real = header(req, "x-real-ip");
  if (real !== undefined) {
    const ip = canonicalIp(real.trim());
    if (ip !== undefined && !ips.includes(ip)) ips.push(ip);
  }
  const remote = canonicalIp(req.socket.remoteAddress ?? "");
  if (remote !== undefined && ips[ips.length - 1] !== remote) ips.push(remote);
  return ips;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** An address as Go prints it: an IPv4-mapped IPv6 address in its IPv4 form. */
function canonicalIp(text: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped !== null) return mapped[1];
  return isIP(text) === 0 ? undefined : text.toLowerCase();
}

/** What a resource request addresses; none for other paths. */
export function objectReference(a: AccessAttributes): AuditObjectReference | undefined {
  if (a.kind !== "resource") return undefined;
  return {
    resource: a.resource,
    ...(a.namespace === "" ? {} : { namespace: a.namespace }),
    ...(a.name === "" ? {} : { name: a.name }),
    ...(a.group === "" ? {} : { apiGroup: a.group }),
    ...(a.version === "" ? {} : { apiVersion: a.version }),
    ...(a.subresource === "" ? {} : { subresource: a.subresource }),
  };
}

/**
 * The reference completed from the object a request sent, where the path did not say (kube's
 * `LogRequestObject`): a create's name, an update's uid and resourceVersion. Keys stay in kube's
 * order.
 */
export function withRequestObject(
  ref: AuditObjectReference | undefined,
  object: unknown,
): AuditObjectReference | undefined {
  if (ref === undefined || typeof object !== "object" || object === null) return ref;
  const meta = (object as { metadata?: unknown }).metadata;
  if (typeof meta !== "object" || meta === null) return ref;
  const m = meta as Record<string, unknown>;
  const pick = (have: string | undefined, key: string) =>
    have !== undefined && have !== ""
      ? have
      : typeof m[key] === "string" && m[key] !== ""
        ? (m[key] as string)
        : undefined;
  const namespace = pick(ref.namespace, "namespace");
  const name = pick(ref.name, "name");
  const uid = pick(ref.uid, "uid");
  const resourceVersion = pick(ref.resourceVersion, "resourceVersion");
  return {
    ...(ref.resource === undefined ? {} : { resource: ref.resource }),
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { name }),
    ...(uid === undefined ? {} : { uid }),
    ...(ref.apiGroup === undefined ? {} : { apiGroup: ref.apiGroup }),
    ...(ref.apiVersion === undefined ? {} : { apiVersion: ref.apiVersion }),
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
    ...(ref.subresource === undefined ? {} : { subresource: ref.subresource }),
  };
}

/** The object without `metadata.managedFields` (a list's items too); the object itself if none. */
export function withoutManagedFields(object: unknown): unknown {
  if (typeof object !== "object" || object === null || Array.isArray(object)) return object;
  const o = object as Record<string, unknown>;
  let out = o;
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (typeof meta === "object" && meta !== null && "managedFields" in meta) {
    const { managedFields: _, ...rest } = meta;
    out = { ...o, metadata: rest };
  }
  if (Array.isArray(o.items)) {
    const items = o.items.map(withoutManagedFields);
    if (items.some((item, i) => item !== (o.items as unknown[])[i])) out = { ...out, items };
  }
  return out;
}
