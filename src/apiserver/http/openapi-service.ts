import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../core/index.ts";
import type { Registry } from "../registry/registry.ts";
import { BuiltinSchemas } from "./builtin-schemas.ts";
import { groupsOf } from "./discovery.ts";
import { groupVersionDocument, gvPath, type PublishedResource } from "./openapi.ts";
import { swaggerDocument } from "./openapi-v2.ts";
import { UNSTORED_RESOURCES } from "./unstored.ts";

/** A document as sent: its JSON bytes and their hash (the ETag, and the index's `?hash=`). */
interface Rendered {
  readonly body: Buffer;
  readonly etag: string;
}

interface CachedDocument extends Rendered {
  /** The published resources it was built from. */
  readonly served: readonly PublishedResource[];
}

interface GroupVersion {
  readonly group: string;
  readonly version: string;
  readonly served: readonly PublishedResource[];
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
 * And `GET /openapi/v2`: every group-version in one Swagger 2.0 document (see
 * {@link swaggerDocument}), in JSON only. kube-apiserver also answers it in protobuf (the form
 * client-go asks for); a client that accepts only protobuf gets 406, as kube answers an Accept it
 * cannot serve.
 *
 * The documents cover the registry's resources and the resources answered without storage (the
 * reviews, bindings, componentstatuses), as kube's cover every resource it serves.
 *
 * Invariant: a cached document is the serialization of exactly the `PublishedResource` objects
 * it records (compared by identity). The registry makes a new one on every change (a CRD
 * established, updated or removed) and the unstored ones are constants, so the same objects
 * mean the same document and the same hash; anything else builds the document again. Nothing is
 * built, and the built-in schemas are not read, before the first OpenAPI request.
 */
export class OpenApiService {
  readonly #registry: Pick<Registry, "all">;
  readonly #clock: Clock;
  readonly #documents = new Map<string, CachedDocument>();
  #swagger: CachedDocument | undefined;
  #builtins: Promise<BuiltinSchemas> | undefined;

  constructor(registry: Pick<Registry, "all">, clock: Clock) {
    this.#registry = registry;
    this.#clock = clock;
  }

  /**
   * Answers `path` (`v2`, `v3`, `v3/api/v1`, `v3/apis/apps/v1`); false when it names no
   * document.
   */
  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<boolean> {
    if (path === "v2" || path === "v2/") {
      res.setHeader("Vary", "Accept");
      if (!acceptsJson(req.headers.accept)) {
        res.statusCode = 406;
        res.end();
        return true;
      }
      send(req, res, await this.#swaggerDocument());
      return true;
    }
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

  async #swaggerDocument(): Promise<Rendered> {
    const current = [...this.#groupVersions().values()];
    const served = current.flatMap((gv) => gv.served);
    const cached = this.#swagger;
    if (
      cached !== undefined &&
      cached.served.length === served.length &&
      cached.served.every((s, i) => s === served[i])
    ) {
      return cached;
    }
    const builtins = await this.#loadBuiltins();
    const docs = current.map((gv) =>
      groupVersionDocument(gv.served, gv.group, gv.version, builtins),
    );
    this.#swagger = { ...render(swaggerDocument(docs)), served };
    return this.#swagger;
  }

  #loadBuiltins(): Promise<BuiltinSchemas> {
    // A failed read (the file missing from a broken install) is tried again next time.
    this.#builtins ??= BuiltinSchemas.load().catch((err: unknown) => {
      this.#builtins = undefined;
      throw err;
    });
    return this.#builtins;
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
    const builtins = await this.#loadBuiltins();
    const doc = {
      ...render(groupVersionDocument(current.served, current.group, current.version, builtins)),
      served: current.served,
    };
    this.#documents.set(gv, doc);
    return doc;
  }

  #groupVersions(): Map<string, GroupVersion> {
    const out = new Map<string, GroupVersion>();
    const published = {
      all: (): PublishedResource[] => [...this.#registry.all(), ...UNSTORED_RESOURCES],
    };
    for (const [group, versions] of groupsOf(published)) {
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

/**
 * Whether an Accept header admits JSON, as kube-openapi's v2 handler negotiates: no header, or a
 * media range matching `application/json` (`*\/*`, `application/*`).
 */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((clause) => {
    const [range = "", ...params] = clause.split(";").map((p) => p.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) return false;
    const [type, subtype] = range.split("/");
    return (type === "application" || type === "*") && (subtype === "json" || subtype === "*");
  });
}

/** `If-None-Match` (a list of entity tags, weak or strong, or `*`) names `etag`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === `"${etag}"`);
}
