/**
 * A local HTTP server for monitors to probe: `/healthy` answers 200, `/unhealthy` 503, and
 * `/flaky` alternates. The examples start one so they need nothing outside the machine.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A running probe target. */
export interface ProbeTarget extends AsyncDisposable {
  url: string;
  close(): Promise<void>;
}

export async function startProbeTarget(port = 0): Promise<ProbeTarget> {
  let flip = false;
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    flip = !flip;
    const code = path.startsWith("/healthy")
      ? 200
      : path.startsWith("/flaky")
        ? flip
          ? 200
          : 503
        : 503;
    res.writeHead(code, { "Content-Type": "text/plain" });
    res.end(code === 200 ? "ok\n" : "unhealthy\n");
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  return { url, close, [Symbol.asyncDispose]: close };
}
