/** Messages between the informer benchmark and its server process. */

export type Request =
  /** Creates namespace `namespace` holding `count` ConfigMaps of about `bytes` of data. */
  | { type: "populate"; namespace: string; count: number; bytes: number }
  /** Creates namespace `namespace` holding `count` running Pods (bench/protobuf/pods.ts). */
  | { type: "populate-pods"; namespace: string; count: number }
  /** Holds back everything watches through the proxy would receive. */
  | { type: "stall" }
  /** `count` updates spread over the first `objects` ConfigMaps, `data.seq` from `firstSeq`. */
  | { type: "burst"; namespace: string; count: number; objects: number; firstSeq: number }
  /** Lets stalled watches flow: everything held back is sent at once. */
  | { type: "resume" }
  /**
   * Compacts the server's storage to its current revision and collects its garbage, so that a
   * round starts on a server holding only the live objects, not in a collection.
   */
  | { type: "quiesce" }
  /** The server's watch-cache counters of ConfigMaps. */
  | { type: "stats" }
  | { type: "stop" };

export type Reply =
  | { type: "ready"; url: string; proxyUrl: string }
  | { type: "populated"; ms: number }
  | { type: "stalled" }
  | { type: "burst-done" }
  | { type: "resumed" }
  | { type: "quiesced" }
  | { type: "stats"; stats: unknown }
  | { type: "error"; message: string };
