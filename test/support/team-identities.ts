import { teamConfigSchema } from "@switchboard/core/config";
import { teamIdentities } from "@switchboard/core/host";

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
