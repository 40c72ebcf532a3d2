import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { topologyFrom } from "../../src/ops/redis/redis.ts";
import { KUBECTL, kustomize, readRepoFile } from "../support/deploy.ts";

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML.
type Manifest = any;

const parseAll = (text: string): Manifest[] => parseAllDocuments(text).map((d) => d.toJS());
const secret: Manifest = parseAll(readRepoFile("deploy/kubernetes/secret.example.yaml"))[0];
const redis: Manifest = parseAll(readRepoFile("deploy/kubernetes/redis.yaml"))[0];

/** The objects of deploy/kubernetes with the KEDA component, as `kubectl apply -k` gets them. */
function withKeda(): Manifest[] {
  if (KUBECTL) return parseAll(kustomize(["keda"]));
  // Without kubectl, the component's own objects: the key checks still hold on them.
  return parseAll(readRepoFile("deploy/kubernetes/components/keda/scaledobject.yaml"));
}

/** Every Secret key an object reads, as "secret/key": KEDA's secretTargetRefs and pods' secretKeyRefs. */
function secretKeysRead(objects: readonly Manifest[]): string[] {
  const keys: string[] = [];
  const visit = (node: Manifest): void => {
    if (node === null || typeof node !== "object") return;
    if (node.secretTargetRef) {
      for (const ref of node.secretTargetRef) keys.push(`${ref.name}/${ref.key}`);
    }
    if (node.secretKeyRef) keys.push(`${node.secretKeyRef.name}/${node.secretKeyRef.key}`);
    Object.values(node).forEach(visit);
  };
  objects.forEach(visit);
  return keys;
}

describe("Redis for the Kubernetes pods and the KEDA scaler (deploy/kubernetes)", () => {
  it("has in the Secret template every Secret key the KEDA objects read", () => {
    const keda = withKeda().filter((o) => o.apiVersion?.startsWith("keda.sh/"));
    expect(keda.map((o) => o.kind).sort()).toEqual(["ScaledObject", "TriggerAuthentication"]);
    const read = secretKeysRead(keda);
    expect(read).toContain("switchyard-env/REDIS_PASSWORD");
    const template = Object.keys(secret.stringData).map((key) => `${secret.metadata.name}/${key}`);
    for (const key of read) expect(template, `${key} is read by KEDA`).toContain(key);
  });

  it("keeps the password out of REDIS_URL, where KEDA cannot read it, and in REDIS_PASSWORD, which the app reads", () => {
    expect(secret.stringData.REDIS_URL).toBeUndefined();
    const topology = topologyFrom({ ...secret.stringData, ...redis.data });
    expect(topology).toMatchObject({ kind: "single", password: secret.stringData.REDIS_PASSWORD });
    const url = new URL((topology as { url: string }).url);
    expect(url.password).toBe("");
  });

  it.runIf(KUBECTL)(
    "points the scaler at the Redis the pods use: one ConfigMap says where, with its database and TLS",
    () => {
      const objects = withKeda();
      const configMap = objects.find(
        (o) => o.kind === "ConfigMap" && o.metadata.name === "switchyard-redis",
      );
      const [trigger] = objects.find((o) => o.kind === "ScaledObject").spec.triggers;
      const url = new URL(configMap.data.REDIS_URL);
      expect(trigger.metadata).toMatchObject({
        address: url.host,
        databaseIndex: url.pathname.slice(1),
        enableTLS: configMap.data.REDIS_TLS,
      });
      expect(url.host).toBe("redis.switchyard.svc:6379");
      // The app reads the same switch: a TLS Redis is TLS for both.
      const tls = topologyFrom({ REDIS_URL: configMap.data.REDIS_URL, REDIS_TLS: "true" });
      expect(tls).toMatchObject({ tls: true });
      for (const o of objects.filter((x) => x.kind === "Deployment")) {
        const [container] = o.spec.template.spec.containers;
        // Last, so a REDIS_URL left in the Secret cannot point the pods elsewhere than KEDA.
        expect(container.envFrom.at(-1), o.metadata.name).toEqual({
          configMapRef: { name: "switchyard-redis" },
        });
      }
    },
  );
});
