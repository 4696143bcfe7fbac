/**
 * kontroller/testing — what users need to test controllers the way we test ours: a fake clock
 * and the conformance suites.
 */
export { type ClockDriver, clockConformance } from "./clock-conformance.ts";
export {
  EtcdNotFoundError,
  type EtcdProcess,
  type StartEtcdOptions,
  startEtcd,
} from "./etcd.ts";
export { FakeClock, type FakeClockOptions } from "./fake-clock.ts";
export {
  type FakeCall,
  FakeListerWatcher,
  type FakeListerWatcherOptions,
} from "./fake-lister-watcher.ts";
export { FaultProxy, startFaultProxy } from "./fault-proxy.ts";
export type {
  CutMode,
  DelayRule,
  FailRule,
  FaultProxyOptions,
  ProxiedRequest,
} from "./fault-rules.ts";
export {
  type ConformanceSetup,
  type QueueConformanceOptions,
  queueConformance,
  strategyConformance,
} from "./queue-conformance.ts";
export { storageConformance } from "./storage-conformance.ts";
export { startTestServer, type TestServer, type TestServerOptions } from "./test-server.ts";
export { type WaitForOptions, waitFor } from "./wait-for.ts";
