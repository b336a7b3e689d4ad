import type { RequestRecord, RequestTracker, RunRecord } from "@switchboard/core/records";

/** One thing a run did, as the console shows it. */
export type RunStepView =
  | {
      readonly kind: "model";
      readonly at: number;
      readonly agent?: string;
      readonly model?: string;
      readonly latencyMs?: number;
      readonly inputTokens?: number;
      readonly outputTokens?: number;
      readonly error?: string;
    }
  | {
      readonly kind: "tool";
      readonly at: number;
      readonly agent?: string;
      readonly tool: string;
      readonly latencyMs?: number;
      readonly error?: string;
    }
  | { readonly kind: "handoff"; readonly at: number; readonly from?: string; readonly to: string }
  | { readonly kind: "delivery"; readonly at: number; readonly chars?: number }
  | { readonly kind: "error"; readonly at: number; readonly message: string };

/** Where the steps of a run come from: the run-steps log. */
export interface TimelineStepSource {
  /** The steps of one run, oldest first; empty when nothing was recorded. */
  stepsOfRun(runId: string): Promise<readonly RunStepView[]>;
}

export interface TimelineRun {
  readonly request: RequestRecord;
  readonly run: RunRecord;
  readonly steps: readonly RunStepView[];
}

/** A conversation's runs, newest request first, each with its steps from the run-steps log. */
export async function runTimeline(
  conversationKey: string,
  deps: { requests: RequestTracker; steps: TimelineStepSource },
  limit = 20,
): Promise<TimelineRun[]> {
  const requests = await deps.requests.inConversation(conversationKey, limit);
  const timeline: TimelineRun[] = [];
  for (const request of requests) {
    const runs = [...request.runs].sort((a, b) => a.startedAt - b.startedAt);
    for (const run of runs) timeline.push({ request, run, steps: await deps.steps.stepsOfRun(run.runId) });
  }
  return timeline;
}
