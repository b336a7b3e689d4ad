/**
 * `pnpm bench`: runs every measurement group in a fresh child process (so one group's heap, JIT
 * state and timers never colour another's), prints one table and writes bench/results.json.
 *
 *   pnpm bench                      every group, writes results.json
 *   pnpm bench --only sticky,heap   some groups; their figures replace theirs in results.json
 */
import { fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GROUPS, type Group, type GroupName } from "./groups.ts";
import { type Figure, type Machine, machine } from "./support/figures.ts";
import { renderNotes, renderTable } from "./support/table.ts";

const here = dirname(fileURLToPath(import.meta.url));

interface GroupResult {
  readonly group: GroupName;
  readonly figures: Figure[];
  readonly machine: Machine;
  readonly date: string;
  readonly seconds: number;
}

type ChildMessage = { ok: true; result: GroupResult } | { ok: false; error: string };

async function runGroupHere(group: GroupName): Promise<void> {
  const started = performance.now();
  const atStart = machine();
  const date = new Date().toISOString();
  try {
    const figures = await GROUPS[group].measure();
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const message: ChildMessage = { ok: true, result: { group, figures, machine: atStart, date, seconds } };
    process.send?.(message);
  } catch (error) {
    const message: ChildMessage = {
      ok: false,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
    process.send?.(message);
    process.exitCode = 1;
  }
}

function runGroupInChild(group: GroupName): Promise<GroupResult> {
  return new Promise((resolve, reject) => {
    const spec: Group = GROUPS[group];
    const child = fork(fileURLToPath(import.meta.url), ["--group", group], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      execArgv: [...process.execArgv, ...(spec.nodeFlags ?? [])],
    });
    let outcome: ChildMessage | undefined;
    const limit = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`bench group ${group} ran longer than ${GROUPS[group].limitSeconds} s and was stopped`),
      );
    }, GROUPS[group].limitSeconds * 1000);
    child.on("message", (message: ChildMessage) => {
      outcome = message;
    });
    child.on("exit", (code) => {
      clearTimeout(limit);
      if (outcome?.ok) resolve(outcome.result);
      else reject(new Error(`bench group ${group} failed (exit ${code}):\n${outcome?.error ?? "no result"}`));
    });
  });
}

function parseGroups(args: readonly string[]): GroupName[] {
  const only = args.indexOf("--only");
  const all = Object.keys(GROUPS) as GroupName[];
  if (only === -1) return all;
  const wanted = (args[only + 1] ?? "").split(",").filter((name) => name !== "");
  const unknown = wanted.filter((name) => !(name in GROUPS));
  if (unknown.length > 0 || wanted.length === 0)
    throw new Error(`--only takes a comma-separated list of: ${all.join(", ")} (got ${args[only + 1]})`);
  return wanted as GroupName[];
}

async function main(args: readonly string[]): Promise<void> {
  const groupFlag = args.indexOf("--group");
  if (groupFlag !== -1) return runGroupHere(args[groupFlag + 1] as GroupName);

  const groups = parseGroups(args);
  const started = performance.now();
  const results: GroupResult[] = [];
  const failures: string[] = [];
  for (const group of groups) {
    process.stderr.write(`bench: ${group}…\n`);
    try {
      const result = await runGroupInChild(group);
      process.stderr.write(`bench: ${group} done in ${result.seconds} s\n`);
      results.push(result);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
      process.stderr.write(`bench: ${failures.at(-1)}\n`);
    }
  }
  const figures = results.flatMap((result) => result.figures);
  const totalSeconds = Math.round((performance.now() - started) / 1000);
  const host = machine();
  const header =
    `Switchboard benchmark, ${new Date().toISOString().slice(0, 10)}: ${host.cpus} × ${host.cpuModel}, ` +
    `Node ${host.node}, ${host.platform}; ${totalSeconds} s`;
  process.stdout.write(
    `\n${header}\n\n${renderTable(figures)}\n\nHow each figure was taken:\n${renderNotes(figures)}\n`,
  );
  process.stdout.write(
    `\nLoad average at the start of each group: ${results.map((r) => `${r.group} ${r.machine.loadAverage}`).join(", ")}\n`,
  );
  if (failures.length > 0) {
    process.stdout.write(`\n${failures.length} group(s) failed; results.json not written.\n`);
    process.exitCode = 1;
    return;
  }
  const fresh = resultsDocument(results, totalSeconds);
  if (groups.length < Object.keys(GROUPS).length) {
    // A partial run updates its groups' figures in place; every figure keeps its own date and machine.
    const written = mergedResults(fresh, groups);
    writeFileSync(join(here, "results.json"), `${JSON.stringify(written, null, 2)}\n`);
    process.stdout.write(
      `\n(partial run: the figures of ${groups.join(", ")} updated in bench/results.json)\n`,
    );
    return;
  }
  writeFileSync(join(here, "results.json"), `${JSON.stringify(fresh, null, 2)}\n`);
  process.stdout.write("\nwritten to bench/results.json\n");
}

type ResultsDocument = ReturnType<typeof resultsDocument>;

/** The stored results with the groups just run replaced (their figures and timings); the rest as they were. */
function mergedResults(fresh: ResultsDocument, groups: readonly GroupName[]): ResultsDocument {
  let stored: ResultsDocument | undefined;
  try {
    stored = JSON.parse(readFileSync(join(here, "results.json"), "utf8")) as ResultsDocument;
  } catch {
    return fresh;
  }
  const ran = new Set<string>(groups);
  return {
    command: stored.command,
    date: fresh.date,
    totalSeconds: stored.totalSeconds,
    groups: [...stored.groups.filter((entry) => !ran.has(entry.group)), ...fresh.groups],
    figures: { ...stored.figures, ...fresh.figures },
  };
}

/** Every figure with its machine and date, as the issue asks; `groups` keeps how long each took. */
function resultsDocument(results: readonly GroupResult[], totalSeconds: number) {
  return {
    command: "pnpm bench",
    date: new Date().toISOString(),
    totalSeconds,
    groups: results.map((r) => ({
      group: r.group,
      seconds: r.seconds,
      loadAverageAtStart: r.machine.loadAverage,
    })),
    figures: Object.fromEntries(
      results.flatMap((r) =>
        r.figures.map((figure) => [
          figure.key,
          {
            value: figure.value,
            unit: figure.unit,
            ...(figure.baseline ? { baseline: figure.baseline } : {}),
            ...(figure.target ? { target: figure.target.text, met: figure.target.met } : {}),
            ...(figure.note ? { note: figure.note } : {}),
            machine: {
              cpus: r.machine.cpus,
              cpuModel: r.machine.cpuModel,
              node: r.machine.node,
              platform: r.machine.platform,
            },
            date: r.date,
          },
        ]),
      ),
    ),
  };
}

await main(process.argv.slice(2));
