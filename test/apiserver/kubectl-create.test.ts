/**
 * `kubectl create <kind>` — the first commands people type — against the server. kubectl sends
 * these bodies as Kubernetes protobuf (and asks for protobuf back), so each one is a protobuf
 * create of a built-in kind decoded, defaulted, stored and answered; the object read back as
 * JSON shows what was sent arrived whole.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kubectlRig } from "./kubectl-rig.ts";

describe("kubectl create <kind> (protobuf bodies)", () => {
  const rig = kubectlRig("kubectl-create", { controllers: false });
  const { kubectl } = rig;
  const get = async (what: string, path: string, ns = "pb") =>
    kubectl("get", ...what.split(" "), ...(ns ? ["-n", ns] : []), "-o", `jsonpath=${path}`);

  it("creates a namespace, and in it a config map, a secret and a service account", async () => {
    assert.match(await kubectl("create", "namespace", "pb"), /namespace\/pb created/);
    assert.equal(await get("namespace pb", "{.status.phase}", ""), "Active");
    assert.match(
      await kubectl(
        "create",
        "configmap",
        "cm",
        "-n",
        "pb",
        "--from-literal=a=b",
        "--from-literal=c=",
      ),
      /configmap\/cm created/,
    );
    assert.equal(await get("configmap cm", "{.data}"), '{"a":"b","c":""}');
    await kubectl("create", "secret", "generic", "s", "-n", "pb", "--from-literal=k=v");
    assert.equal(await get("secret s", "{.type} {.data.k}"), "Opaque dg==");
    await kubectl("create", "serviceaccount", "sa", "-n", "pb");
    assert.equal(await get("serviceaccount sa", "{.metadata.name}"), "sa");
  });

  it("creates a deployment, a job and a cron job with their pod templates whole", async () => {
    await kubectl(
      "create",
      "deployment",
      "web",
      "-n",
      "pb",
      "--image=nginx",
      "--replicas=0",
      "--port=80",
    );
    assert.equal(
      await get(
        "deployment web",
        "{.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort} {.spec.strategy.type} {.spec.template.spec.restartPolicy}",
      ),
      "0 nginx 80 RollingUpdate Always",
    );
    await kubectl("create", "job", "j", "-n", "pb", "--image=busybox", "--", "echo", "hi");
    assert.equal(
      await get(
        "job j",
        "{.spec.template.spec.containers[0].command} {.spec.template.spec.restartPolicy} {.spec.backoffLimit}",
      ),
      '["echo","hi"] Never 6',
    );
    await kubectl(
      "create",
      "cronjob",
      "cj",
      "-n",
      "pb",
      "--image=busybox",
      "--schedule=*/5 * * * *",
      "--",
      "date",
    );
    assert.equal(
      await get(
        "cronjob cj",
        "{.spec.schedule} {.spec.jobTemplate.spec.template.spec.containers[0].command} {.spec.concurrencyPolicy}",
      ),
      '*/5 * * * * ["date"] Allow',
    );
  });

  it("creates a service, a quota, a disruption budget, an ingress and a priority class", async () => {
    await kubectl("create", "service", "clusterip", "svc", "-n", "pb", "--tcp=80:8080");
    assert.equal(
      await get(
        "service svc",
        "{.spec.type} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.ports[0].protocol}",
      ),
      "ClusterIP 80 8080 TCP",
    );
    await kubectl("create", "quota", "q", "-n", "pb", "--hard=pods=10,requests.cpu=500m");
    assert.equal(
      await get("resourcequota q", "{.spec.hard}"),
      '{"pods":"10","requests.cpu":"500m"}',
    );
    await kubectl(
      "create",
      "poddisruptionbudget",
      "pdb",
      "-n",
      "pb",
      "--selector=app=web",
      "--min-available=1",
    );
    assert.equal(
      await get("pdb pdb", "{.spec.minAvailable} {.spec.selector.matchLabels.app}"),
      "1 web",
    );
    await kubectl("create", "ingress", "ing", "-n", "pb", "--rule=foo.com/bar=svc:8080");
    assert.equal(
      await get(
        "ingress ing",
        "{.spec.rules[0].host} {.spec.rules[0].http.paths[0].path} {.spec.rules[0].http.paths[0].backend.service.port.number}",
      ),
      "foo.com /bar 8080",
    );
    await kubectl("create", "priorityclass", "pc", "--value=1000", "--description=high");
    assert.equal(
      await get("priorityclass pc", "{.value} {.description} {.preemptionPolicy}", ""),
      "1000 high PreemptLowerPriority",
    );
  });

  it("creates roles and cluster roles and binds them", async () => {
    await kubectl("create", "role", "r", "-n", "pb", "--verb=get,list", "--resource=pods");
    assert.equal(
      await get("role r", "{.rules[0].verbs} {.rules[0].resources}"),
      '["get","list"] ["pods"]',
    );
    await kubectl("create", "rolebinding", "rb", "-n", "pb", "--role=r", "--user=alice");
    assert.equal(
      await get("rolebinding rb", "{.roleRef.kind}/{.roleRef.name} {.subjects[0].name}"),
      "Role/r alice",
    );
    await kubectl("create", "clusterrole", "cr", "--verb=get", "--resource=nodes");
    assert.equal(await get("clusterrole cr", "{.rules[0].resources}", ""), '["nodes"]');
    await kubectl("create", "clusterrolebinding", "crb", "--clusterrole=cr", "--group=ops");
    assert.equal(
      await get("clusterrolebinding crb", "{.subjects[0].kind} {.subjects[0].name}", ""),
      "Group ops",
    );
  });

  it("answers a create that fails in protobuf, and kubectl reads the Status", async () => {
    const out = await rig.fails("create", "configmap", "cm", "-n", "pb");
    assert.match(out, /configmaps "cm" already exists/);
  });
});
