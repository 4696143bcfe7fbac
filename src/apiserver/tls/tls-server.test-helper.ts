import type { IncomingMessage, ServerResponse } from "node:http";
import { type Agent, createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import type { KeyCertificate } from "./certificate-authority.ts";

/** A local HTTPS server for a test, closed with `await using`. */
export interface TestHttpsServer extends AsyncDisposable {
  readonly port: number;
  /** TLS connections the server accepted so far. */
  readonly connections: () => number;
}

/**
 * An HTTPS server on 127.0.0.1 serving `serving`, asking clients for a certificate signed by
 * `clientCa` without refusing those that send none (as kube-apiserver does), answering each
 * request with `handle`.
 */
export async function startHttpsServer(
  serving: KeyCertificate,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  clientCa?: string,
): Promise<TestHttpsServer> {
  const server = createServer(
    {
      cert: serving.certificatePem,
      key: serving.privateKeyPem,
      ...(clientCa === undefined ? {} : { ca: clientCa, requestCert: true }),
      rejectUnauthorized: false,
    },
    handle,
  );
  let connections = 0;
  server.on("secureConnection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    [Symbol.asyncDispose]: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** TLS options of a request: what the client trusts and presents. */
export interface ClientTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly servername?: string;
  readonly agent?: Agent;
}

/**
 * GETs `/` from `port` on 127.0.0.1 over TLS: the body, or the error the request failed with
 * (its `code` says why: `ERR_TLS_CERT_ALTNAME_INVALID`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`…).
 */
export function get(port: number, tls: ClientTls): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/",
        ...(tls.agent === undefined ? { agent: false } : { agent: tls.agent }),
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.cert === undefined ? {} : { cert: tls.cert, key: tls.key }),
        ...(tls.servername === undefined ? {} : { servername: tls.servername }),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve(body));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
