import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { EVENTS_PATH } from "../../src/platforms/slack/http-screen.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  INGRESS_STOP_SECONDS,
  KUBECTL,
  kustomize,
  LONGEST_STEP_SECONDS,
  ROOT,
  readRepoFile,
} from "../support/deploy.ts";

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML until validated.
type Manifest = any;

const DIR = join(ROOT, "deploy/kubernetes");

/** The model class that validates each kind offline against its OpenAPI schema. */
const MODELS: Record<
  string,
  { validate(): void } & (new (data: Manifest) => { validate(): void })
> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "batch/v1/Job": Job,
  "networking.k8s.io/v1/Ingress": Ingress,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
  "keda.sh/v1alpha1/TriggerAuthentication": TriggerAuthentication,
} as never;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return name.endsWith(".yaml") ? [path] : [];
  });
}

function documents(text: string, where: string): Manifest[] {
  return parseAllDocuments(text).map((doc) => {
    expect(doc.errors, where).toEqual([]);
    return doc.toJS();
  });
}

/** Every object of every file, kustomizations and the patch aside (they are not objects of a cluster). */
const files = yamlFiles(DIR).map((path) => ({
  path,
  docs: documents(readRepoFile(relative(ROOT, path)), path),
}));
const isPatch = (path: string) => path.endsWith("ingress-one-poller.yaml");
const objects = files
  .filter(({ path }) => !path.endsWith("kustomization.yaml") && !isPatch(path))
  .flatMap(({ path, docs }) => docs.map((doc) => ({ path: relative(DIR, path), object: doc })));
const named = (kind: string, name: string): Manifest =>
  objects.find(({ object }) => object.kind === kind && object.metadata?.name === name)?.object;

function validate(object: Manifest, where: string): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  expect(Model, `${where}: ${object.apiVersion} ${object.kind} has no schema here`).toBeDefined();
  if (Model) new Model(object).validate();
}

/** Strategic-merge for the maps our patch touches: maps merge, null deletes, the rest replaces. */
function merge(base: Manifest, patch: Manifest): Manifest {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out = { ...(base ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value);
  }
  return out;
}

describe("the Kubernetes manifests (deploy/kubernetes)", () => {
  it("validates every object against the Kubernetes and KEDA schemas", () => {
    expect(objects.map(({ object }) => object.kind).sort()).toEqual([
      "ConfigMap",
      "ConfigMap",
      "Deployment",
      "Deployment",
      "HorizontalPodAutoscaler",
      "Ingress",
      "Job",
      "Namespace",
      "PodDisruptionBudget",
      "ScaledObject",
      "Secret",
      "Service",
      "TriggerAuthentication",
    ]);
    for (const { path, object } of objects) validate(object, path);
  });

  it("refuses what the schemas refuse, so the check above can fail", () => {
    const broken = structuredClone(named("Deployment", "switchyard-worker"));
    broken.spec.replicas = "two";
    expect(() => validate(broken, "broken")).toThrow(/replicas must be integer/);
  });

  it("probes readiness on /readyz and liveness on /healthz, and gives each pod the stop its role needs", () => {
    for (const name of ["switchyard-ingress", "switchyard-worker"]) {
      const pod = named("Deployment", name).spec.template.spec;
      const [container] = pod.containers;
      expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "metrics" });
      expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
      expect(container.ports).toEqual(
        expect.arrayContaining([{ name: "metrics", containerPort: 9464 }]),
      );
      expect(container.lifecycle.preStop.exec.command[0]).toBe("sleep");
      if (name === "switchyard-worker") {
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(LONGEST_STEP_SECONDS);
      } else {
        // An ingress runs no turns: sized to its drain, so a rollout takes seconds, not minutes.
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(INGRESS_STOP_SECONDS);
        expect(pod.terminationGracePeriodSeconds).toBeLessThan(LONGEST_STEP_SECONDS);
      }
      expect(container.resources.requests).toEqual({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      expect(container.resources.limits).toEqual({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      expect(pod.topologySpreadConstraints.length).toBeGreaterThan(0);
      expect(container.env).toEqual(
        expect.arrayContaining([
          { name: "SWITCHYARD_ROLE", value: name.replace("switchyard-", "") },
        ]),
      );
    }
  });

  it("keeps /healthz and /metrics on the pod's IP, whether or not the config enables the console", () => {
    for (const name of ["switchyard-ingress", "switchyard-worker"]) {
      const [container] = named("Deployment", name).spec.template.spec.containers;
      expect(container.env, name).toEqual(
        expect.arrayContaining([{ name: "SWITCHYARD_METRICS_HOST", value: "0.0.0.0" }]),
      );
    }
  });

  it("runs every pod as a non-root user on a read-only root filesystem, /tmp its only writable place", () => {
    const pods = [
      named("Deployment", "switchyard-ingress").spec.template.spec,
      named("Deployment", "switchyard-worker").spec.template.spec,
      objects.find(({ object }) => object.kind === "Job")?.object.spec.template.spec,
    ];
    for (const pod of pods) {
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      for (const container of pod.containers) {
        expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
        expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
        const tmp = container.volumeMounts.find((m: Manifest) => m.mountPath === "/tmp");
        expect(pod.volumes.find((v: Manifest) => v.name === tmp.name).emptyDir).toBeDefined();
      }
    }
  });

  it("serves webhooks from the ingress pods and keeps drains to one worker at a time", () => {
    const service = named("Service", "switchyard-ingress");
    expect(service.spec.selector).toEqual(
      named("Deployment", "switchyard-ingress").spec.selector.matchLabels,
    );
    expect(service.spec.ports).toEqual(
      expect.arrayContaining([expect.objectContaining({ targetPort: "http" })]),
    );
    const budget = named("PodDisruptionBudget", "switchyard-worker");
    expect(budget.spec.selector).toEqual(named("Deployment", "switchyard-worker").spec.selector);
  });

  it("ships the config file of deploy/ and a Secret template without real values", () => {
    expect(named("ConfigMap", "switchyard-config").data["switchyard.yaml"]).toBe(
      readRepoFile("deploy/switchyard.yaml"),
    );
    for (const value of Object.values(named("Secret", "switchyard-env").stringData) as string[]) {
      expect(value).not.toMatch(/^(xox[abp]-|sk-[A-Za-z0-9]{8})/);
    }
    const base = documents(
      readRepoFile("deploy/kubernetes/kustomization.yaml"),
      "kustomization",
    )[0];
    expect(base.resources).not.toContain("secret.example.yaml");
  });

  it("scales workers on the queue shard's wait list (KEDA) or on the queue gauges (HPA), never to 0", () => {
    const scaled = named("ScaledObject", "switchyard-worker");
    expect(scaled.spec.scaleTargetRef.name).toBe("switchyard-worker");
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    const [trigger] = scaled.spec.triggers;
    expect(trigger.type).toBe("redis");
    // BullMQ's wait list of the only shard of the default layout.
    expect(trigger.metadata.listName).toBe(new KeyScheme("sy").turnWaitList(0, 1));
    const hpa = named("HorizontalPodAutoscaler", "switchyard-worker");
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(
      hpa.spec.metrics.map((m: Manifest) => (m.external ?? m.pods).metric.name).sort(),
    ).toEqual(["switchyard_queue_waiting", "switchyard_turns_in_progress"]);
  });

  it("routes Slack's and Telegram's webhook paths, and nothing else, to the ingress Service over HTTPS", () => {
    const ingress = named("Ingress", "switchyard-webhooks");
    const service = named("Service", "switchyard-ingress");
    const [rule] = ingress.spec.rules;
    const secretTemplate = readRepoFile("deploy/kubernetes/secret.example.yaml");
    const telegram = new URL(/TELEGRAM_WEBHOOK_URL: "([^"]+)"/.exec(secretTemplate)?.[1] ?? "");
    const slack = new URL(
      parse(readRepoFile("deploy/slack/manifest.yaml")).settings.event_subscriptions.request_url,
    );
    expect(rule.http.paths.map((p: Manifest) => [p.path, p.pathType])).toEqual([
      [EVENTS_PATH, "Exact"],
      [telegram.pathname, "Exact"],
    ]);
    expect([rule.host, ingress.spec.tls[0].hosts]).toEqual([slack.host, [telegram.host]]);
    for (const path of rule.http.paths) {
      expect(path.backend.service.name).toBe(service.metadata.name);
      const port = service.spec.ports.find(
        (p: Manifest) => p.name === path.backend.service.port.name,
      );
      expect(port.targetPort).toBe("http");
    }
  });

  it("runs one Telegram long poller: one replica, recreated rather than rolled", () => {
    const patch = files.find(({ path }) => isPatch(path))?.docs[0];
    const ingress = merge(named("Deployment", "switchyard-ingress"), patch);
    validate(ingress, "ingress with telegram-polling");
    expect(ingress.spec.replicas).toBe(1);
    expect(ingress.spec.strategy).toEqual({ type: "Recreate" });
  });

  it(
    KUBECTL
      ? "builds with kubectl kustomize, alone and with each component, into valid objects"
      : "has kustomizations that name only files that exist (kubectl is not installed, so it does not build them)",
    () => {
      const kustomizations = files.filter(({ path }) => path.endsWith("kustomization.yaml"));
      for (const { path, docs } of kustomizations) {
        const dir = join(path, "..");
        for (const entry of [
          ...(docs[0].resources ?? []),
          ...(docs[0].patches ?? []).map((p: Manifest) => p.path),
        ]) {
          if (entry)
            expect(
              statSync(join(dir, entry)).isFile() || statSync(join(dir, entry)).isDirectory(),
            ).toBe(true);
        }
      }
      if (!KUBECTL) return;
      for (const component of [undefined, "keda", "hpa", "telegram-polling", "webhooks"]) {
        const output = documents(
          kustomize(component ? [component] : []),
          `kustomize with ${component ?? "no component"}`,
        );
        for (const object of output) validate(object, `${component ?? "base"}: ${object.kind}`);
        const worker = output.find(
          (o) => o.kind === "Deployment" && o.metadata.name === "switchyard-worker",
        );
        const ingress = output.find(
          (o) => o.kind === "Deployment" && o.metadata.name === "switchyard-ingress",
        );
        // An autoscaler owns the worker count; a fixed one would undo it on every apply.
        expect(worker.spec.replicas).toBe(
          component === "keda" || component === "hpa" ? undefined : 2,
        );
        expect(ingress.spec.strategy.type).toBe(
          component === "telegram-polling" ? "Recreate" : "RollingUpdate",
        );
      }
    },
  );
});
