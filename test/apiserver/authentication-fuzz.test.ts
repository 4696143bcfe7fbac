/**
 * Fuzzed credentials against the embedded server over HTTPS, sent byte for byte on a raw TLS
 * connection: random `Authorization` headers, tokens one character off a valid one, forged
 * ServiceAccount JWTs (payload or signature changed, `alg: none`), random impersonation headers
 * and self-signed client certificates naming any user. The server must answer each (never
 * crash, never 5xx), and authenticate only what a valid credential names.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import fc from "fast-check";
import { CertificateAuthority } from "kontroller/apiserver";
import { startTestServer, type TestServer } from "kontroller/testing";

const REVIEW = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const BODY = '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}';
const TOKENS = { alicetoken: "alice", "bob-token-0123": "bob" } as const;
const RUNS = 150;

/** What the server answered: the status, and the user a SelfSubjectReview named. */
interface Answer {
  status: number;
  username?: string;
  groups?: string[];
}

describe("authentication fuzzed", () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kontroller-authn-fuzz-"));
    const file = join(dir, "tokens.csv");
    await writeFile(
      file,
      Object.entries(TOKENS)
        .map(([t, u]) => `${t},${u},${u}-uid\n`)
        .join(""),
    );
    s = await startTestServer({
      tls: {},
      token: "shared-s3cret",
      tokenAuthFile: file,
      anonymousAuth: false,
      authorization: "RBAC",
      controllers: false,
    });
  });
  after(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * A request sent byte for byte (headers as latin1) on a TLS connection of its own, with a
   * client certificate if given: the status and the JSON body, if any.
   */
  function send(
    method: string,
    path: string,
    headers: readonly (readonly [string, string])[],
    body: string,
    client?: { cert: string; key: string },
  ): Promise<{ status: number; body: unknown }> {
    const { port } = new URL(s.url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: Number(port), ca: s.ca!, ...client });
      const chunks: Buffer[] = [];
      socket.on("data", (c: Buffer) => chunks.push(c));
      socket.on("error", reject);
      socket.on("end", () => {
        const text = Buffer.concat(chunks).toString("latin1");
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
        resolve({ status, body: tryParse(text.slice(text.indexOf("\r\n\r\n") + 4)) });
      });
      socket.on("secureConnect", () => {
        const head = [
          `${method} ${path} HTTP/1.1`,
          "Host: 127.0.0.1",
          "Content-Type: application/json",
          `Content-Length: ${Buffer.byteLength(body)}`,
          "Connection: close",
          ...headers.map(([n, v]) => `${n}: ${v}`),
        ];
        // Written, not ended: the server closes the connection after its answer.
        socket.write(Buffer.from(`${head.join("\r\n")}\r\n\r\n${body}`, "latin1"));
      });
    });
  }

  /** Who a SelfSubjectReview sent with `headers` (and a client certificate) says we are. */
  async function review(
    headers: readonly (readonly [string, string])[],
    client?: { cert: string; key: string },
  ): Promise<Answer> {
    const { status, body } = await send("POST", REVIEW, headers, BODY, client);
    const user = (body as { status?: { userInfo?: { username: string; groups: string[] } } })
      ?.status?.userInfo;
    return { status, ...(user ? { username: user.username, groups: user.groups } : {}) };
  }

  /** The server still answers: the shared token is still the administrator. */
  async function stillServes(): Promise<void> {
    const ok = await review([["Authorization", "Bearer shared-s3cret"]]);
    assert.equal(ok.username, "admin");
  }

  it("authenticates a random Authorization header only when it carries a valid token", async () => {
    const valid = new Map<string, string>([["shared-s3cret", "admin"], ...Object.entries(TOKENS)]);
    const byte = fc.integer({ min: 0x20, max: 0xff }).filter((b) => b !== 0x7f);
    const junk = fc.array(byte, { maxLength: 40 }).map((b) => Buffer.from(b).toString("latin1"));
    const header = fc.oneof(
      junk,
      fc
        .tuple(
          fc.constantFrom("Bearer ", "bearer ", "BEARER  ", "Basic ", ""),
          junk,
          fc.constantFrom(...valid.keys(), ""),
        )
        .map(([scheme, a, b]) => `${scheme}${a}${b}`),
      fc.tuple(fc.constantFrom(...valid.keys()), junk).map(([t, rest]) => `Bearer ${t} ${rest}`),
    );
    await fc.assert(
      fc.asyncProperty(header, async (value) => {
        const answer = await review([["Authorization", value]]);
        assert.ok(answer.status < 500, `${answer.status} for ${JSON.stringify(value)}`);
        // kube trims white space as Go's strings.TrimSpace does, UTF-8 spaces included.
        const space =
          "[ \\t]|\\xc2[\\x85\\xa0]|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|\\xe2\\x81\\x9f|\\xe3\\x80\\x80";
        const trimmed = value.replace(new RegExp(`^(?:${space})+|(?:${space})+$`, "g"), "");
        const parts = trimmed.split(" ");
        const token = parts.length >= 2 && parts[0]!.toLowerCase() === "bearer" ? parts[1] : "";
        const expected = token === undefined ? undefined : valid.get(token);
        if (expected === undefined)
          assert.ok(
            answer.status === 401 || answer.status === 400,
            `${answer.status} for ${JSON.stringify(value)}`,
          );
        else assert.equal(answer.username, expected);
      }),
      { numRuns: RUNS },
    );
    await stillServes();
  });

  it("never authenticates a token one character off a valid one", async () => {
    const token = fc.constantFrom("shared-s3cret", ...Object.keys(TOKENS));
    const edit = fc.tuple(
      token,
      fc.nat(),
      fc.integer({ min: 0x21, max: 0x7e }),
      fc.constantFrom("replace", "insert", "delete"),
    );
    await fc.assert(
      fc.asyncProperty(edit, async ([t, at, code, how]) => {
        const i = at % t.length;
        const c = String.fromCharCode(code);
        const changed =
          how === "replace"
            ? t.slice(0, i) + c + t.slice(i + 1)
            : how === "insert"
              ? t.slice(0, i) + c + t.slice(i)
              : t.slice(0, i) + t.slice(i + 1);
        fc.pre(changed !== t);
        assert.equal((await review([["Authorization", `Bearer ${changed}`]])).status, 401);
      }),
      { numRuns: RUNS },
    );
  });

  it("never authenticates a ServiceAccount JWT with a changed payload or signature, or alg none", async () => {
    const admin = [["Authorization", "Bearer shared-s3cret"]] as const;
    await call("POST", "/api/v1/namespaces/default/serviceaccounts", {
      metadata: { name: "robot" },
    });
    const issued = await call("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", {
      spec: { expirationSeconds: 3600 },
    });
    const jwt: string = issued.status.token;
    assert.equal(
      (await review([["Authorization", `Bearer ${jwt}`]])).username,
      "system:serviceaccount:default:robot",
    );
    const [header, payload, signature] = jwt.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const forged = fc.oneof(
      // Another subject, a later expiry, or another audience under the same signature.
      fc
        .constantFrom(
          { ...claims, sub: "system:serviceaccount:kube-system:admin" },
          { ...claims, exp: claims.exp + 86400 },
          { ...claims, aud: ["other"] },
          { ...claims, "kubernetes.io": { ...claims["kubernetes.io"], namespace: "kube-system" } },
        )
        .map((c) => `${header}.${b64(c)}.${signature}`),
      // alg none, with and without a signature.
      fc
        .constantFrom("", signature)
        .map((sig) => `${b64({ alg: "none", typ: "JWT" })}.${payload}.${sig}`),
      // A signature with one byte changed.
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, x]) => {
        const bytes = Buffer.from(signature, "base64url");
        const i = at % bytes.length;
        bytes[i] = bytes[i]! ^ x;
        return `${header}.${payload}.${bytes.toString("base64url")}`;
      }),
      // Random bytes in each part.
      fc
        .tuple(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }))
        .map(
          ([a, b]) =>
            `${header}.${Buffer.from(a).toString("base64url")}.${Buffer.from(b).toString("base64url")}`,
        ),
    );
    await fc.assert(
      fc.asyncProperty(forged, async (token) => {
        assert.equal((await review([["Authorization", `Bearer ${token}`]])).status, 401);
      }),
      { numRuns: RUNS },
    );
    await stillServes();

    async function call(method: string, path: string, body: unknown) {
      const answer = await send(method, path, admin, JSON.stringify(body));
      assert.equal(answer.status, 201, `${method} ${path}: ${JSON.stringify(answer)}`);
      return answer.body as { status: { token: string } };
    }
  });

  it("answers random impersonation headers 400 or 403 for a user without rights, never as someone else", async () => {
    const name = fc.constantFrom(
      "Impersonate-User",
      "Impersonate-Group",
      "Impersonate-Uid",
      "Impersonate-Extra-scopes",
      "Impersonate-Extra-example.com%2Fx",
      "Impersonate-Extra-%zz",
      "Impersonate-Extra-",
    );
    const value = fc.oneof(
      fc.constantFrom(
        "",
        "system:masters",
        "admin",
        "system:serviceaccount:a:b",
        "system:node:n1",
        "system:anonymous",
      ),
      fc
        .array(
          fc.integer({ min: 0x20, max: 0xff }).filter((b) => b !== 0x7f),
          { maxLength: 20 },
        )
        .map((b) => Buffer.from(b).toString("latin1")),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 6 }), async (headers) => {
        const answer = await review([["Authorization", "Bearer alicetoken"], ...headers]);
        assert.ok(answer.status < 500, `${answer.status} for ${JSON.stringify(headers)}`);
        // Alice may impersonate nobody: she is herself, or refused.
        if (answer.username !== undefined) assert.equal(answer.username, "alice");
        else
          assert.ok(
            [400, 403].includes(answer.status),
            `${answer.status} for ${JSON.stringify(headers)}`,
          );
      }),
      { numRuns: RUNS },
    );
    await stillServes();
  });

  it("never authenticates a client certificate another CA signed, whatever it names", async () => {
    const other = await CertificateAuthority.create();
    const names = fc.tuple(
      fc.constantFrom("admin", "system:admin", "alice", "system:serviceaccount:default:robot"),
      fc.subarray(["system:masters", "system:authenticated", "devs"]),
    );
    await fc.assert(
      fc.asyncProperty(names, async ([user, groups]) => {
        const minted = await other.issueClientCertificate({ user, groups });
        const answer = await review([], {
          cert: minted.certificatePem,
          key: minted.privateKeyPem,
        }).catch(() => ({ status: 0 }) as Answer);
        assert.ok(answer.status === 401 || answer.status === 0, `${answer.status} as ${user}`);
      }),
      { numRuns: 20 },
    );
    // A key that is not the certificate's: the handshake fails, the server goes on.
    const minted = await other.issueClientCertificate({
      user: "admin",
      groups: ["system:masters"],
    });
    const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    await review([], { cert: minted.certificatePem, key: stranger }).catch(() => undefined);
    await stillServes();
  });
});

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
