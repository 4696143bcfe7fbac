import { after, before } from "node:test";
import { type EtcdProcess, startEtcd, storageConformance } from "../../testing/index.ts";
import { EtcdStorage } from "./etcd-storage.ts";

// One etcd for the file; each test gets its own key prefix (tests in a file run one at a time,
// so the revision arithmetic of the suite holds).
let etcd: EtcdProcess;
let n = 0;
before(async () => {
  etcd = await startEtcd();
});
after(() => etcd.close());

storageConformance(
  "EtcdStorage",
  async () => new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/conformance-${++n}` }),
);
