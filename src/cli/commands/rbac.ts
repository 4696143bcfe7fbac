import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseAuditLog, type RbacSubject, rbacFromAudit, rbacYaml } from "../../apiserver/index.ts";
import { errorMessage } from "../../core/index.ts";
import type { Command } from "../command.ts";

const USAGE = `usage: kontroller rbac from-audit <audit.log> [--user USER | --serviceaccount NAMESPACE/NAME]
                        [--namespace-scoped] [--name NAME] [--include-discovery]

Prints the smallest RBAC (rbac.authorization.k8s.io/v1, YAML) that allows exactly the requests
one identity made, read from an audit log (kube-apiserver's --audit-log-path, or kontroller
serve --audit-log): rules by verb, API group and resource (subresources as "pods/log") and
non-resource URL, the verbs of a resource joined as kube's CompactRules joins them, then the
resources of a group with the same verbs; a ClusterRole and its ClusterRoleBinding to the
identity. Object names are not kept.
  --user               whose requests: a username (an impersonated user counts as the one
                       impersonated); default: the log's only user
  --serviceaccount     whose requests: the service account NAMESPACE/NAME
  --namespace-scoped   a Role and RoleBinding per namespace for the requests in a namespace
                       (a ClusterRole only for the rest), for a controller confined to its
                       namespaces
  --name               the roles' and bindings' name (default: the identity's name)
  --include-discovery  keep requests kube's bootstrap policy allows every authenticated user
                       (discovery, /version, /healthz, self access reviews)
`;

/** `kontroller rbac from-audit`: returns the exit code. */
async function fromAudit(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    process.stderr.write(`kontroller rbac from-audit: ${errorMessage(err)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(
      `kontroller rbac from-audit: give one audit log, got ${positionals.length}\n\n${USAGE}`,
    );
    return 2;
  }
  const subject = subjectOption(values.user, values.serviceaccount);
  if (typeof subject === "string") {
    process.stderr.write(`kontroller rbac from-audit: ${subject}\n`);
    return 2;
  }
  const path = positionals[0]!;
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    process.stderr.write(`kontroller rbac from-audit: cannot read ${path}: ${errorMessage(err)}\n`);
    return 1;
  }
  try {
    const found = rbacFromAudit(parseAuditLog(text, path), {
      ...(subject === undefined ? {} : { subject }),
      ...(values["namespace-scoped"] ? { namespaceScoped: true } : {}),
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values["include-discovery"] ? { includeGrantedToAll: true } : {}),
    });
    if (found.manifests.length === 0) {
      process.stderr.write(
        `kontroller rbac from-audit: ${path} records no request of ${describe(found.subject)} that needs a rule\n`,
      );
      return 1;
    }
    process.stdout.write(rbacYaml(found.manifests));
    return 0;
  } catch (err) {
    process.stderr.write(`kontroller rbac from-audit: ${path}: ${errorMessage(err)}\n`);
    return 1;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    options: {
      user: { type: "string" },
      serviceaccount: { type: "string" },
      "namespace-scoped": { type: "boolean" },
      name: { type: "string" },
      "include-discovery": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: true,
  });
}

function subjectOption(
  user: string | undefined,
  serviceAccount: string | undefined,
): RbacSubject | undefined | string {
  if (user !== undefined && serviceAccount !== undefined) {
    return "give --user or --serviceaccount, not both";
  }
  if (user !== undefined) {
    return user === "" ? "--user must be a username" : { kind: "User", name: user };
  }
  if (serviceAccount === undefined) return undefined;
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(serviceAccount);
  if (m === null) {
    return `--serviceaccount must be NAMESPACE/NAME, got ${JSON.stringify(serviceAccount)}`;
  }
  return { kind: "ServiceAccount", namespace: m[1]!, name: m[2]! };
}

function describe(subject: RbacSubject): string {
  return subject.kind === "User"
    ? `user ${JSON.stringify(subject.name)}`
    : `service account ${subject.namespace}/${subject.name}`;
}

const SUBCOMMANDS: Readonly<Record<string, (args: string[]) => Promise<number>>> = {
  "from-audit": fromAudit,
};

/** `kontroller rbac`: RBAC from what an identity did. */
export const command: Command = {
  summary: "write the smallest RBAC for the requests an audit log records (from-audit)",
  async run(args) {
    const [sub, ...rest] = args;
    const run = sub === undefined ? undefined : SUBCOMMANDS[sub];
    if (sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(USAGE);
      return 0;
    }
    if (run === undefined) {
      process.stderr.write(
        `kontroller rbac: ${sub === undefined ? "give a subcommand" : `unknown subcommand ${JSON.stringify(sub)}`}\n\n${USAGE}`,
      );
      return 2;
    }
    return run(rest);
  },
};
