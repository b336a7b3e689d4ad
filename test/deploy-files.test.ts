/**
 * The deployment files (Dockerfile, the container's configuration, the compose example, the
 * secrets template) agree with each other and with the code. No container engine is needed: the
 * Dockerfile is linted with dockerfile-utils, the rest is read and validated like the CLI would.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { validate } from "dockerfile-utils";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CLI_PACKAGE, readWorkspace, runtimeClosure } from "../deploy/pack-packages.ts";
import { ENV_OVERRIDES } from "../packages/cli/src/config/env-overrides.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { runCommandsOfStage } from "./support/packaging/dockerfile-stages.ts";
import { REPOSITORY_ROOT } from "./support/packaging/repository-root.ts";

const read = (path: string) => readFile(join(REPOSITORY_ROOT, path), "utf8");

describe("Dockerfile", () => {
  it("passes the Dockerfile linter without a remark", async () => {
    expect(validate(await read("Dockerfile"))).toEqual([]);
  });

  it("the linter does catch mistakes (an invalid port, a duration without unit)", () => {
    const problems = validate("FROM node:22\nEXPOSE http\nHEALTHCHECK --interval=5 CMD true\n");
    expect(problems.map((problem) => problem.message)).toEqual([
      "Invalid containerPort: http",
      "time: missing unit in duration 5",
    ]);
  });

  it("installs the pnpm version package.json pins", async () => {
    const { packageManager } = JSON.parse(await read("package.json")) as { packageManager: string };
    expect(await read("Dockerfile")).toContain(
      `npm install --global --no-audit --no-fund ${packageManager}\n`,
    );
  });

  it("runs as the unprivileged node user with /data as a volume", async () => {
    const dockerfile = await read("Dockerfile");
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(finalStage).toMatch(/\nUSER node\n/);
    expect(finalStage).toContain('VOLUME ["/data"]');
  });
});

describe("the container's configuration", () => {
  it("is valid, keeps the store in /data and serves /health where the health check asks", async () => {
    const { config } = await loadConfig({
      path: join(REPOSITORY_ROOT, "deploy/switchboard.container.yaml"),
      cwd: "/data",
      env: {},
    });
    expect(config.store).toBe("sqlite:///data/switchboard.db");
    expect(config.http).toMatchObject({ host: "0.0.0.0", port: 8787 });
    expect(await read("Dockerfile")).toContain(`fetch('http://127.0.0.1:${config.http?.port}/health')`);
  });
});

describe("the compose example", () => {
  interface ComposeService {
    environment?: Record<string, string>;
    volumes?: string[];
    env_file?: string;
    stop_grace_period?: string;
    depends_on?: Record<string, unknown>;
  }

  it("points Switchboard's store at its Redis service and mounts the configuration the image reads", async () => {
    const compose = parse(await read("deploy/compose.yaml")) as { services: Record<string, ComposeService> };
    const switchboard = compose.services.switchboard;
    expect(Object.keys(compose.services).sort()).toEqual(["redis", "switchboard"]);
    expect(switchboard?.environment?.SWITCHBOARD_STORE_URL).toBe("redis://redis:6379");
    expect(switchboard?.depends_on).toHaveProperty("redis");
    expect(switchboard?.volumes).toContain("./switchboard.yaml:/etc/switchboard/switchboard.yaml:ro");
    expect(switchboard?.volumes).toContain("switchboard-data:/data");
    expect(await read("Dockerfile")).toContain(
      'CMD ["start", "--config", "/etc/switchboard/switchboard.yaml"]',
    );
    // The clean stop gets one lock TTL of the defaults, as the systemd unit does.
    const { config } = await loadConfig({ cwd: REPOSITORY_ROOT, env: {}, path: "switchboard.example.yaml" });
    expect(switchboard?.stop_grace_period).toBe(`${config.engine.lockTtlSeconds}s`);
  });

  it("the secrets template names only variables Switchboard reads", async () => {
    const known = new Set(ENV_OVERRIDES.map((override) => override.variable));
    const named = (await read("deploy/switchboard.env.example"))
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.slice(0, line.indexOf("=")));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((variable) => !known.has(variable))).toEqual([]);
  });
});

describe("the scale-out compose example", () => {
  interface ClusterService {
    environment?: Record<string, string>;
    deploy?: { replicas?: number };
    depends_on?: Record<string, unknown>;
  }

  it("runs Redis, one ingress and two workers, each a valid configuration for its role", async () => {
    const compose = parse(await read("deploy/compose.scale-out.yaml"), { merge: true }) as {
      services: Record<string, ClusterService>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(["ingress", "redis", "worker"]);
    const { ingress, worker } = compose.services;
    expect(ingress?.deploy?.replicas ?? 1).toBe(1);
    expect(worker?.deploy?.replicas).toBe(2);
    for (const [service, role] of [
      [ingress, "ingress"],
      [worker, "worker"],
    ] as const) {
      expect(service?.depends_on).toHaveProperty("redis");
      expect(service?.environment?.SWITCHBOARD_ROLE).toBe(role);
      const { config } = await loadConfig({
        path: join(REPOSITORY_ROOT, "deploy/switchboard.container.yaml"),
        cwd: "/data",
        env: service?.environment ?? {},
      });
      expect(config.role).toBe(role);
      expect(config.store).toBe("redis://redis:6379");
    }
  });
});

describe("the packages the container packs", () => {
  const workspace = (entries: Record<string, Record<string, string>>) =>
    new Map(
      Object.entries(entries).map(([name, dependencies]) => [
        name,
        { name, folder: `/ws/${name}`, dependencies },
      ]),
    );

  it("are the CLI and every workspace package it depends on at run time, dependencies first", () => {
    const closure = runtimeClosure(
      workspace({
        cli: { core: "workspace:*", web: "workspace:^", zod: "^4" },
        web: { core: "workspace:*", hono: "^4" },
        core: { zod: "^4" },
        bench: { core: "workspace:*" },
      }),
      "cli",
    );
    expect(closure.map((found) => found.name)).toEqual(["core", "web", "cli"]);
  });

  it("are read from this repository's manifests: today all six packages", () => {
    const names = runtimeClosure(readWorkspace(REPOSITORY_ROOT), CLI_PACKAGE).map((found) => found.name);
    expect(names.sort()).toEqual(
      ["cli", "core", "discord", "matrix", "slack", "web"].map((name) => `@switchboard/${name}`),
    );
  });

  it("refuses a workspace dependency no package provides, and a circle", () => {
    expect(() => runtimeClosure(workspace({ cli: { gone: "workspace:*" } }), "cli")).toThrow(
      "cli depends on gone with a workspace: version, but no package in packages/ is named so",
    );
    expect(() =>
      runtimeClosure(workspace({ a: { b: "workspace:*" }, b: { a: "workspace:*" } }), "a"),
    ).toThrow("workspace packages depend on each other in a circle through a");
  });

  it("are packed by the Dockerfile through deploy/pack-packages.ts, not a typed list", async () => {
    const packing = runCommandsOfStage(await read("Dockerfile"), "build").at(-1);
    expect(packing).toBe("pnpm build && node deploy/pack-packages.ts /packs");
  });
});

describe("reading the Dockerfile's stages", () => {
  it("joins continued lines, drops comments inside them and keeps each stage's RUN commands apart", () => {
    const dockerfile = [
      "FROM node:22 AS build",
      "RUN one \\",
      "# a comment inside the continuation",
      " && two",
      "FROM node:22 AS install",
      "WORKDIR /opt/x",
      "RUN three",
    ].join("\n");
    expect(runCommandsOfStage(dockerfile, "build")).toEqual(["one && two"]);
    expect(runCommandsOfStage(dockerfile, "install")).toEqual(["three"]);
    expect(() => runCommandsOfStage(dockerfile, "final")).toThrow("no RUN command in a stage named final");
  });
});
