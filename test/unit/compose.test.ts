import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readConfig } from "../../src/platforms/config.ts";
import {
  documentedEnvironmentNames,
  durationSeconds,
  envFileNames,
  INGRESS_STOP_SECONDS,
  LONGEST_STEP_SECONDS,
  ROOT,
  readRepoFile,
} from "../support/deploy.ts";

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string | null>;
  env_file?: string | string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  restart?: string;
  deploy?: { replicas?: number };
}

// merge: the Switchyard services share one block through a YAML anchor and `<<`.
const compose = parse(readRepoFile("deploy/compose.yaml"), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const switchyards = Object.entries(services).filter(([name]) => name !== "redis");

/** docker-compose (Debian's package validates without an engine); .ci/run installs it. */
const dockerCompose = spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status === 0;

describe("the compose file (deploy/compose.yaml)", () => {
  it("runs Redis 7 with AOF persistence and a healthcheck", () => {
    const redis = services.redis as Service;
    expect(redis.image).toBe("redis:7");
    expect(redis.command?.join(" ")).toMatch(/--appendonly yes/);
    expect(redis.healthcheck?.test).toEqual(["CMD", "redis-cli", "ping"]);
    expect(redis.volumes?.some((v) => v.endsWith(":/data"))).toBe(true);
    expect(redis.restart).toBe("unless-stopped");
  });

  it("runs one ingress and two workers from the image, each waiting for a healthy Redis", () => {
    expect(switchyards.map(([, s]) => s.environment?.SWITCHYARD_ROLE).sort()).toEqual([
      "ingress",
      "worker",
    ]);
    expect(services.worker?.deploy?.replicas).toBe(2);
    expect(services.ingress?.deploy?.replicas ?? 1).toBe(1);
    for (const [, service] of switchyards) {
      expect(service.image).toBe("switchyard:latest");
      expect(service.depends_on).toEqual({ redis: { condition: "service_healthy" } });
      // No env_file: docker-compose v1 refuses to run without the file.
      expect(service.env_file).toBeUndefined();
      // biome-ignore lint/suspicious/noTemplateCurlyInString: compose interpolates it, not JavaScript.
      expect(service.environment?.REDIS_URL).toBe("${REDIS_URL:-redis://redis:6379}");
      expect(service.volumes).toContain("./switchyard.yaml:/etc/switchyard/switchyard.yaml:ro");
      expect(service.environment?.SWITCHYARD_CONFIG).toBe("/etc/switchyard/switchyard.yaml");
      expect(service.restart).toBe("unless-stopped");
    }
  });

  it("gives a stopping worker longer than a turn's longest step, and an ingress what it needs to drain", () => {
    expect(durationSeconds(services.worker?.stop_grace_period ?? "0s")).toBeGreaterThan(
      LONGEST_STEP_SECONDS,
    );
    const ingress = durationSeconds(services.ingress?.stop_grace_period ?? "0s");
    expect(ingress).toBeGreaterThanOrEqual(INGRESS_STOP_SECONDS);
    expect(ingress).toBeLessThan(LONGEST_STEP_SECONDS);
  });

  it("passes every variable of the docs' environment table on to both processes, from deploy/.env when it sets it", () => {
    for (const [name, service] of switchyards) {
      expect(Object.keys(service.environment ?? {}), name).toEqual(
        expect.arrayContaining(documentedEnvironmentNames()),
      );
    }
  });

  it("lists in .env.example every variable of the docs' environment table, and no value", () => {
    const example = readRepoFile("deploy/.env.example");
    expect(envFileNames(example)).toEqual(documentedEnvironmentNames());
    const set = example.split("\n").filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line));
    expect(set).toEqual([]);
  });

  it("ships an example config file that parses without a problem", () => {
    const reading = readConfig(readRepoFile("deploy/switchyard.yaml"), "deploy/switchyard.yaml");
    expect(reading.warnings).toEqual([]);
    expect(reading.config.queue.mode).toBe("collect");
  });

  it(
    dockerCompose
      ? "is accepted by docker-compose config on a fresh clone, with no deploy/.env"
      : "has references that resolve (docker-compose is not installed, so it does not check them too)",
    () => {
      const dir = freshClone();
      try {
        for (const [, service] of switchyards) {
          for (const volume of service.volumes ?? []) {
            expect(existsSync(join(dir, "deploy", volume.split(":")[0] as string))).toBe(true);
          }
          for (const dependency of Object.keys(service.depends_on ?? {})) {
            expect(Object.keys(services)).toContain(dependency);
          }
        }
        for (const volume of services.redis?.volumes ?? []) {
          expect(Object.keys(compose.volumes ?? {})).toContain(volume.split(":")[0]);
        }
        if (dockerCompose) expect(composeConfig(dir).services.worker).toBeDefined();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(dockerCompose)(
    "gives the processes what deploy/.env sets, REDIS_URL and the HTTP port included",
    () => {
      const dir = freshClone();
      try {
        writeFileSync(
          join(dir, "deploy/.env"),
          "OPENAI_API_KEY=test-key\nREDIS_URL=redis://redis.example:6380\nSWITCHYARD_HTTP_PORT=8080\n",
        );
        const resolved = composeConfig(dir).services;
        for (const name of ["ingress", "worker"]) {
          expect(resolved[name]?.environment, name).toMatchObject({
            OPENAI_API_KEY: "test-key",
            REDIS_URL: "redis://redis.example:6380",
            SWITCHYARD_HTTP_PORT: "8080",
          });
        }
        expect(JSON.stringify(resolved.ingress?.ports)).toMatch(/8080/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

/** deploy/ as a fresh clone has it: the tracked files, no deploy/.env. */
function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), "sy-compose-"));
  mkdirSync(join(dir, "deploy"));
  for (const file of ["compose.yaml", "switchyard.yaml", "Dockerfile", ".env.example"]) {
    copyFileSync(join(ROOT, "deploy", file), join(dir, "deploy", file));
  }
  return dir;
}

/** `docker-compose config` of the clone at `dir`, parsed; this process's own variables kept out. */
function composeConfig(dir: string): { services: Record<string, Service & { ports?: unknown }> } {
  const output = execFileSync(
    "docker-compose",
    ["-f", join(dir, "deploy/compose.yaml"), "config"],
    {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return parse(output);
}
