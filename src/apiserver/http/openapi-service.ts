import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../core/index.ts";
import type { Registry, ServedResource } from "../registry/registry.ts";
import { BuiltinSchemas } from "./builtin-schemas.ts";
import { groupsOf } from "./discovery.ts";
import { groupVersionDocument, gvPath } from "./openapi.ts";

/** A document as sent: its JSON bytes and their hash (the ETag, and the index's `?hash=`). */
interface Rendered {
  readonly body: Buffer;
  readonly etag: string;
}

interface CachedDocument extends Rendered {
  /** The served resources it was built from. */
  readonly served: readonly ServedResource[];
}

interface GroupVersion {
  readonly group: string;
  readonly version: string;
  readonly served: readonly ServedResource[];
}

/** How long a document asked for by its hash may be kept: kube-openapi's year. */
const IMMUTABLE_MS = 365 * 24 * 3600 * 1000;

/**
 * `GET /openapi/v3` and `GET /openapi/v3/<group-version>`, with kube-openapi's (handler3)
 * caching, which kubectl's HTTP cache (~/.kube/cache/http) relies on:
 *
 * - the index lists each group-version's document at `?hash=<its ETag>`;
 * - a document asked for with its current hash never changes: `Cache-Control: public,
 *   immutable` and an `Expires` a year on, so kubectl reads it from its cache with no request;
 *   with an old hash, a 301 to the current one; with none, its `ETag` to revalidate;
 * - a request whose `If-None-Match` has the current ETag gets 304 and no body.
 *
 * Invariant: a cached document is the serialization of exactly the `ServedResource` objects it
 * records (compared by identity). The registry makes a new one on every change (a CRD
 * established, updated or removed), so the same objects mean the same document and the same
 * hash; anything else builds the document again. Nothing is built, and the built-in schemas are
 * not read, before the first OpenAPI request.
 */
export class OpenApiService {
  readonly #registry: Pick<Registry, "all">;
  readonly #clock: Clock;
  readonly #documents = new Map<string, CachedDocument>();
  #builtins: Promise<BuiltinSchemas> | undefined;

  constructor(registry: Pick<Registry, "all">, clock: Clock) {
    this.#registry = registry;
    this.#clock = clock;
  }

  /** Answers `path` (`v3`, `v3/api/v1`, `v3/apis/apps/v1`); false when it names no document. */
  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<boolean> {
    if (path === "v3" || path === "v3/") {
      send(req, res, await this.#index());
      return true;
    }
    const m = /^v3\/(api\/[^/]+|apis\/[^/]+\/[^/]+)$/.exec(path);
    if (m === null) return false;
    const doc = await this.#document(m[1]!);
    if (doc === undefined) return false;
    res.setHeader("Vary", "Accept");
    const hash = query.get("hash");
    if (hash !== null && hash !== "") {
      if (hash !== doc.etag) {
        res.statusCode = 301;
        res.setHeader("Location", serverRelativeUrl(m[1]!, doc.etag));
        res.setHeader("Cache-Control", "no-cache, no-store");
        res.end();
        return true;
      }
      res.setHeader("Cache-Control", "public, immutable");
      res.setHeader("Expires", new Date(this.#clock.now() + IMMUTABLE_MS).toUTCString());
    }
    send(req, res, doc);
    return true;
  }

  async #index(): Promise<Rendered> {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [gv, current] of this.#groupVersions()) {
      const doc = await this.#document(gv, current);
      if (doc !== undefined) paths[gv] = { serverRelativeURL: serverRelativeUrl(gv, doc.etag) };
    }
    for (const gv of this.#documents.keys()) {
      if (!(gv in paths)) this.#documents.delete(gv);
    }
    return render({ paths });
  }

  /** The current document of a group-version (by its path, `apis/apps/v1`), if it is served. */
  async #document(
    gv: string,
    current = this.#groupVersions().get(gv),
  ): Promise<CachedDocument | undefined> {
    if (current === undefined) return undefined;
    const cached = this.#documents.get(gv);
    if (
      cached !== undefined &&
      cached.served.length === current.served.length &&
      cached.served.every((s, i) => s === current.served[i])
    ) {
      return cached;
    }
    // A failed read (the file missing from a broken install) is tried again next time.
    this.#builtins ??= BuiltinSchemas.load().catch((err: unknown) => {
      this.#builtins = undefined;
      throw err;
    });
    const builtins = await this.#builtins;
    const doc = {
      ...render(groupVersionDocument(current.served, current.group, current.version, builtins)),
      served: current.served,
    };
    this.#documents.set(gv, doc);
    return doc;
  }

  #groupVersions(): Map<string, GroupVersion> {
    const out = new Map<string, GroupVersion>();
    for (const [group, versions] of groupsOf(this.#registry)) {
      for (const [version, served] of versions) {
        out.set(gvPath(group, version), { group, version, served });
      }
    }
    return out;
  }
}

function serverRelativeUrl(gv: string, etag: string): string {
  return `/openapi/v3/${gv}?hash=${etag}`;
}

/** JSON bytes and their SHA-512 in upper-case hex, kube-openapi's ETag. */
function render(value: unknown): Rendered {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: createHash("sha512").update(body).digest("hex").toUpperCase() };
}

function send(req: IncomingMessage, res: ServerResponse, doc: Rendered): void {
  res.setHeader("ETag", `"${doc.etag}"`);
  if (matches(req.headers["if-none-match"], doc.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", doc.body.length);
  res.end(doc.body);
}

/** `If-None-Match` (a list of entity tags, weak or strong, or `*`) names `etag`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === `"${etag}"`);
}
