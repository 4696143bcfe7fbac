/**
 * A minimal keep-alive HTTP client for the API server benchmarks (same for every server), over
 * HTTPS for `https://` URLs.
 */
import { Agent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/**
 * An agent with `sockets` keep-alive connections; with `ca`, an HTTPS agent trusting that CA
 * (each connection's handshake happens once, on its first request).
 */
export function keepAliveAgent(sockets: number, ca?: string): Agent {
  return ca === undefined
    ? new Agent({ keepAlive: true, maxSockets: sockets })
    : new HttpsAgent({ keepAlive: true, maxSockets: sockets, ca });
}

/** node:https's request for an `https://` URL, node:http's otherwise. */
function request(url: string): typeof httpRequest {
  return url.startsWith("https:") ? httpsRequest : httpRequest;
}

/** Sends one request (`body` as `contentType`) and resolves with the status and the body's length (the body is read). */
export function send(
  agent: Agent,
  url: string,
  method: string,
  body?: string,
  contentType = "application/json",
): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url)(
      url,
      {
        method,
        agent,
        headers: body
          ? { "content-type": contentType, "content-length": Buffer.byteLength(body) }
          : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const buf = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            bytes: buf.length,
            text: buf.length < 4096 ? buf.toString() : "",
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Runs `total` jobs with `concurrency` in flight. */
export async function pool(
  total: number,
  concurrency: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await job(next++);
    }),
  );
}

/** Opens a watch stream and counts complete lines; resolves `done` when `expected` arrived. */
export function openWatch(
  agent: Agent,
  url: string,
  expected: number,
): Promise<{ done: Promise<void>; count: () => number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(url)(url, { agent }, (res) => {
      let lines = 0;
      let resolveDone: () => void = () => {};
      const done = new Promise<void>((r) => {
        resolveDone = r;
      });
      res.on("data", (c: Buffer) => {
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        if (lines >= expected) resolveDone();
      });
      res.on("error", () => {});
      resolve({ done, count: () => lines, close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}
