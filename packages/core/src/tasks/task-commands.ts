import type { Command } from "../commands/command.ts";
import type { Clock } from "../runtime/clock.ts";
import type { TaskControls } from "./task-controls.ts";
import { isTerminal, type TaskRecord, usedMs } from "./task-record.ts";
import { normalizeTaskId } from "./task-starter.ts";
import type { TaskStepEntry, TaskStore } from "./task-store.ts";

const SHOWN_STEPS = 5;

/** `/tasks` and `/task …`: a thread's tasks, one task's progress, and its controls. */
export function taskCommands(options: { store: TaskStore; controls: TaskControls; clock: Clock }): Command[] {
  const { store, controls, clock } = options;
  return [
    {
      name: "tasks",
      summary: "list this thread's background tasks",
      async run({ key, prefix }) {
        const tasks = await store.inHome(key);
        if (tasks.length === 0)
          return {
            reply:
              "No background tasks in this thread. Agents start one for long work (research, comparisons).",
          };
        const now = clock.now();
        return {
          reply: [
            "Background tasks in this thread:",
            ...tasks.map((task) => `- ${describeTask(task, now)}`),
            `${prefix}task <id> shows one task's last steps.`,
          ].join("\n"),
        };
      },
    },
    {
      name: "task",
      usage: "<id> | pause <id> | resume <id> | cancel <id> | steer <id> <guidance>",
      summary: "show a background task, or pause, resume, cancel or steer it",
      async run({ args, message, prefix }) {
        const [first = "", second = "", ...rest] = args.split(/\s+/).filter((word) => word !== "");
        const action = first.toLowerCase();
        if (action === "pause" || action === "resume" || action === "cancel" || action === "steer") {
          if (second === "") return { reply: `Which task? ${prefix}task ${action} <id>` };
          const guidance = action === "steer" ? args.replace(/^\s*steer\s+\S+\s*/i, "") : "";
          const result = await controls.control(second, action, { id: message.author.id }, guidance, prefix);
          return { reply: result.sentence };
        }
        if (first === "")
          return {
            reply: `Usage: ${prefix}task <id>, ${prefix}task pause|resume|cancel <id>, ${prefix}task steer <id> <guidance>. ${prefix}tasks lists this thread's tasks.`,
          };
        if (rest.length > 0 || second !== "")
          return { reply: `I do not know "${action}". Usage: ${prefix}task pause|resume|cancel|steer <id>.` };
        const record = await store.get(normalizeTaskId(first));
        if (!record)
          return {
            reply: `There is no task ${normalizeTaskId(first)}. ${prefix}tasks lists this thread's tasks.`,
          };
        return { reply: progressText(record, await store.steps(record, SHOWN_STEPS), clock.now()) };
      },
    },
  ];
}

/** One line per task: id, title, status, progress, age. */
export function describeTask(task: TaskRecord, now: number): string {
  const minutes = Math.max(0, Math.round((now - task.createdAt) / 60_000));
  const age =
    minutes < 1 ? "just now" : minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
  return `${task.id} "${task.title}" — ${statusText(task, now)}, step ${task.iteration} of at most ${task.maxIterations}, started ${age}`;
}

function statusText(task: TaskRecord, now: number): string {
  if (task.status === "waiting" && task.retryAt) {
    const seconds = Math.max(0, Math.round((task.retryAt - now) / 1000));
    return `waiting (${task.lastError ?? "the model is unavailable"}; next try in ${seconds} s)`;
  }
  if (task.status === "failed") return `failed (${task.lastError ?? "no reason recorded"})`;
  if (task.status === "paused") return `paused by ${task.changedBy ?? "someone"}`;
  return task.status;
}

/** ", $0.0123", ", cost unknown" (no step's model has a price), ", $0.0123 + unknown", or nothing. */
function taskCost(task: TaskRecord): string {
  const unpriced = task.unpricedSteps ?? 0;
  if (unpriced === 0) return task.costUsd > 0 ? `, $${task.costUsd.toFixed(4)}` : "";
  return task.costUsd > 0 ? `, $${task.costUsd.toFixed(4)} + unknown` : ", cost unknown";
}

/** `/task <id>`: where it stands, what it cost, and its last steps in short. */
export function progressText(task: TaskRecord, steps: readonly TaskStepEntry[], now: number): string {
  const ran = Math.round(usedMs(task, now) / 1000);
  const lines = [
    `**Task ${task.id} · ${task.title}** (${task.agent}, asked by ${task.requesterId})`,
    `${statusText(task, now)}; step ${task.iteration} of at most ${task.maxIterations}; running time ${ran} s; ${task.inputTokens + task.outputTokens} tokens${taskCost(task)}.`,
  ];
  if (steps.length > 0) {
    lines.push(isTerminal(task.status) ? "Its last steps:" : "Latest steps:");
    for (const step of steps) lines.push(`${step.iteration}. ${stepLine(step)}`);
  }
  if (task.pendingGuidance.length > 0) lines.push(`Guidance not yet heard: ${task.pendingGuidance.length}.`);
  return lines.join("\n");
}

function stepLine(step: TaskStepEntry): string {
  const tools = step.toolCalls.map((call) => `${call.name}${call.status === "error" ? " (failed)" : ""}`);
  const did = tools.length > 0 ? `called ${tools.join(", ")}` : "answered";
  const text = step.text.replace(/\s+/g, " ").trim();
  const said = text === "" ? "" : `: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`;
  return `${did}${said}${step.guidance.length > 0 ? " (after guidance)" : ""}`;
}
