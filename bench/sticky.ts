import { randomUUID } from "node:crypto";
import { AIMessage } from "@langchain/core/messages";
import { teamConfigSchema } from "@switchboard/core/config";
import { atMost, type Figure } from "./support/figures.ts";
import { ScriptedChatModel } from "./support/scripted-model.ts";
import { median, round } from "./support/stats.ts";
import { openStack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

const TEAM = teamConfigSchema.parse({
  supervisor: { prompt: "Route the user to the right specialist.", model: "supervisor" },
  specialists: [
    {
      name: "billing",
      description: "invoices, payments, refunds",
      prompt: "Help with billing.",
      model: "billing",
    },
    {
      name: "tech_support",
      description: "computers, errors",
      prompt: "Fix technical problems.",
      model: "tech",
    },
  ],
});

const CONVERSATIONS = 20;
const FOLLOW_UPS = 10;
/** The simulated provider: every model call takes this long. */
const MODEL_LATENCY_MS = 300;
const LATENCY_FOLLOW_UPS = 6;

/** The supervisor always hands the conversation to billing; billing answers. */
function teamModels(latencyMs: number) {
  const supervisor = new ScriptedChatModel(
    () =>
      new AIMessage({
        content: "",
        tool_calls: [{ id: randomUUID(), name: "transfer_to_billing", args: {}, type: "tool_call" }],
      }),
    { latencyMs },
  );
  let answers = 0;
  const billing = new ScriptedChatModel(() => new AIMessage(message200("billing answer", ++answers)), {
    latencyMs,
  });
  const tech = new ScriptedChatModel(() => new AIMessage("unused"), { latencyMs });
  return { supervisor, billing, tech };
}

interface FollowUpRun {
  /** Model calls (all agents) per follow-up message. */
  readonly callsPerFollowUp: number;
  /** Median accept → post milliseconds of the follow-ups. */
  readonly followUpMs: number;
}

/** Each conversation: one message (the handoff), then follow-ups; counts what the follow-ups cost. */
async function followUps(sticky: boolean, latencyMs: number, conversations: number, perConversation: number) {
  const dir = tempDir(`sticky-${sticky}`);
  const models = teamModels(latencyMs);
  const stack = await openStack({ url: sqliteUrl(dir.path), models, team: TEAM, sticky });
  const calls = () => models.supervisor.stats.calls + models.billing.stats.calls + models.tech.stats.calls;
  const times: number[] = [];
  let followUpCalls = 0;
  try {
    for (let c = 0; c < conversations; c++) {
      await stack.adapter.ask(`c-${c}`, message200("invoice question", 0));
      await stack.engine.idle();
      for (let f = 1; f <= perConversation; f++) {
        const before = calls();
        times.push(await stack.adapter.ask(`c-${c}`, message200("follow-up", f)));
        await stack.engine.idle();
        followUpCalls += calls() - before;
      }
    }
  } finally {
    await stack.close();
    dir.remove();
  }
  const run: FollowUpRun = {
    callsPerFollowUp: round(followUpCalls / (conversations * perConversation), 3),
    followUpMs: round(median(times), 1),
  };
  return run;
}

/** Sticky routing on and off: model calls per follow-up (instant models), then latency with slow models. */
export async function measureSticky(): Promise<Figure[]> {
  const stickyCalls = await followUps(true, 0, CONVERSATIONS, FOLLOW_UPS);
  const supervisorCalls = await followUps(false, 0, CONVERSATIONS, FOLLOW_UPS);
  const stickySlow = await followUps(true, MODEL_LATENCY_MS, 1, LATENCY_FOLLOW_UPS);
  const supervisorSlow = await followUps(false, MODEL_LATENCY_MS, 1, LATENCY_FOLLOW_UPS);
  const ratio = round(stickySlow.followUpMs / supervisorSlow.followUpMs, 3);
  const counted = `${CONVERSATIONS} conversations × ${FOLLOW_UPS} follow-ups after a handoff to a specialist`;
  return [
    {
      key: "modelCallsPerFollowUpSticky",
      value: stickyCalls.callsPerFollowUp,
      unit: "calls/follow-up",
      baseline: { label: "modelCallsPerFollowUpSupervisor", value: supervisorCalls.callsPerFollowUp },
      target: { text: "= 1.0", met: stickyCalls.callsPerFollowUp === 1 },
      note: `${counted}; routing.sticky on`,
    },
    {
      key: "modelCallsPerFollowUpSupervisor",
      value: supervisorCalls.callsPerFollowUp,
      unit: "calls/follow-up",
      target: { text: "= 2.0", met: supervisorCalls.callsPerFollowUp === 2 },
      note: `${counted}; routing.sticky off`,
    },
    {
      key: "followUpLatencyRatio",
      value: ratio,
      unit: "×",
      baseline: { label: "non-sticky follow-up ms", value: supervisorSlow.followUpMs },
      target: { text: "≤ 0.55", met: atMost(ratio, 0.55) },
      note:
        `median follow-up accept → post with a ${MODEL_LATENCY_MS} ms model: ${stickySlow.followUpMs} ms sticky, ` +
        `${supervisorSlow.followUpMs} ms non-sticky (${LATENCY_FOLLOW_UPS} follow-ups each)`,
    },
  ];
}
