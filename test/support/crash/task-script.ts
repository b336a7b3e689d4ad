/**
 * A model for background-task tests. In a turn it starts a task when asked to research a `t…`
 * token and answers `q…` questions at once; inside the task (its system prompt says so) it calls
 * the `lookup` tool once per step, `<token>-s<step>`, until step `steps`, then writes the result —
 * saying whether it heard the guidance "only direct flights".
 */
import { type ChatRequest, type StubReply, textOf } from "../model/chat-request.ts";
import { shortAnswer, tokenOf } from "./scripted-answers.ts";

export const TASK_PROMPT_MARK = "working alone on a background task";
export const GUIDANCE = "only direct flights";

export function taskResult(token: string, steps: number, guided: boolean): string {
  return `Research result for ${token} after ${steps} steps${guided ? " (direct flights only)" : ""}.`;
}

export function taskScript(options: { steps: number; stepLatencyMs?: number }) {
  return (request: ChatRequest): StubReply => {
    const token = tokenOf(request);
    if (request.system.includes(TASK_PROMPT_MARK)) {
      const messages = request.body.messages;
      const step = messages.filter((message) => message.role === "assistant").length + 1;
      const guided = messages.some(
        (message) => message.role === "user" && textOf(message.content).includes(GUIDANCE),
      );
      const latency = options.stepLatencyMs === undefined ? {} : { latencyMs: options.stepLatencyMs };
      if (step < options.steps)
        return {
          kind: "answer",
          toolCalls: [{ name: "lookup", args: { order: `${token}-s${step}` } }],
          ...latency,
        };
      return { kind: "answer", text: taskResult(token, step, guided), ...latency };
    }
    const last = request.body.messages.at(-1);
    const started = last?.role === "tool" ? request.toolResults.get("start_task") : undefined;
    if (started !== undefined) return { kind: "answer", text: started };
    if (token.startsWith("t") && request.toolNames.includes("start_task"))
      return {
        kind: "answer",
        toolCalls: [
          {
            name: "start_task",
            args: {
              title: `Research ${token}`,
              instructions: `Research ${token} and compare the options.`,
              tools: ["lookup"],
            },
          },
        ],
      };
    return { kind: "answer", text: shortAnswer(token) };
  };
}
