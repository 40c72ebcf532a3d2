import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readConfig } from "../../src/core/config/load.ts";
import {
  durationSeconds,
  envFileNames,
  LONGEST_STEP_SECONDS,
  ROOT,
  readmeEnvironmentNames,
  readRepoFile,
} from "../support/deploy.ts";

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
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
      expect(service.env_file).toBe(".env");
      expect(service.environment?.REDIS_URL).toBe("redis://redis:6379");
      expect(service.volumes).toContain("./switchyard.yaml:/etc/switchyard/switchyard.yaml:ro");
      expect(service.environment?.SWITCHYARD_CONFIG).toBe("/etc/switchyard/switchyard.yaml");
      expect(service.restart).toBe("unless-stopped");
    }
  });

  it("gives a stopping process longer than a turn's longest step to finish it", () => {
    for (const [, service] of switchyards) {
      expect(durationSeconds(service.stop_grace_period ?? "0s")).toBeGreaterThan(
        LONGEST_STEP_SECONDS,
      );
    }
  });

  it("lists in .env.example every variable of the README's table, and no value", () => {
    const example = readRepoFile("deploy/.env.example");
    expect(envFileNames(example)).toEqual(readmeEnvironmentNames());
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
      ? "is accepted by docker-compose config, with .env made from .env.example"
      : "has references that resolve (docker-compose is not installed, so it does not check them too)",
    () => {
      // As an operator's first deploy does: .env copied from the example, beside the compose file.
      const dir = mkdtempSync(join(tmpdir(), "sy-compose-"));
      try {
        mkdirSync(join(dir, "deploy"));
        for (const file of ["compose.yaml", "switchyard.yaml", "Dockerfile"]) {
          copyFileSync(join(ROOT, "deploy", file), join(dir, "deploy", file));
        }
        copyFileSync(join(ROOT, "deploy/.env.example"), join(dir, "deploy/.env"));
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
        if (dockerCompose) {
          execFileSync("docker-compose", ["-f", join(dir, "deploy/compose.yaml"), "config", "-q"], {
            stdio: ["ignore", "ignore", "pipe"],
          });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
