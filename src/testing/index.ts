/**
 * kontroller/testing — what users need to test controllers the way we test ours: a fake clock
 * and the conformance suites, as data any test runner can run (node:test through
 * kontroller/testing/node-test).
 */
export {
  type ClockDriver,
  type ClockSubject,
  clockConformance,
} from "./clock-conformance.ts";
export {
  type ConformanceCase,
  type ConformanceSubject,
  type ConformanceSuite,
  conformanceCases,
  type PlannedCase,
} from "./conformance.ts";
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
  findKubeApiServer,
  KubeApiServerNotFoundError,
  type KubeApiServerProcess,
  type StartKubeApiServerOptions,
  startKubeApiServer,
} from "./kube-apiserver.ts";
export { queueConformance } from "./queue-conformance.ts";
export type {
  ConformanceSetup,
  QueueCapability,
  QueueSubject,
} from "./queue-conformance-setup.ts";
export { RequestRecorder } from "./request-recorder.ts";
export { type StorageSubject, storageConformance } from "./storage-conformance.ts";
export { type StrategySubject, strategyConformance } from "./strategy-conformance.ts";
export {
  embeddedOnly,
  startTestServer,
  type TestBackend,
  type TestServer,
  type TestServerOptions,
  testBackend,
} from "./test-server.ts";
export { type WaitForOptions, waitFor } from "./wait-for.ts";
