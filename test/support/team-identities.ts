import type { Turn, TurnAnswer } from "@switchboard/core";
import { teamConfigSchema } from "@switchboard/core/config";
import { teamIdentities } from "@switchboard/core/host";
import { streamedAnswer } from "@switchboard/core/testing";

/** The example support team with faces: an emoji icon, an image icon, and a supervisor with a name only. */
export const SUPPORT_TEAM = teamConfigSchema.parse({
  supervisor: { prompt: "Route the question.", display: { name: "Front desk" } },
  specialists: [
    {
      name: "billing",
      description: "Invoices and refunds",
      prompt: "You handle billing.",
      display: { name: "Billing", icon: ":moneybag:" },
    },
    {
      name: "tech_support",
      description: "Technical problems",
      prompt: "You fix things.",
      display: { name: "Tech support", icon: "https://example.com/tech.png" },
    },
    { name: "scheduling", description: "Appointments", prompt: "You book things." },
  ],
});

export const SUPPORT_IDENTITIES = teamIdentities(SUPPORT_TEAM);

/** An answer `agent` writes the way a streaming model does, piece by piece, and signs. */
export function streamedAs(agent: string, pieces: readonly string[], paceMs = 60) {
  return async (turn: Turn): Promise<TurnAnswer> => {
    const listener = turn.onEvent;
    const text = await streamedAnswer({ pieces, paceMs })({
      ...turn,
      ...(listener ? { onEvent: (event) => listener({ ...event, agent }) } : {}),
    });
    return { text, agent };
  };
}
