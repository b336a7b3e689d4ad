/**
 * The platform sections of switchboard.yaml. Each adapter package owns the shape of its section;
 * a section present in the file — even empty, with its secrets in the environment — enables that
 * platform. Unknown keys are rejected here as everywhere else in the file.
 */
import { discordAdapterConfigSchema } from "@switchboard/discord";
import { matrixAdapterConfigSchema } from "@switchboard/matrix";
import { slackAdapterConfigSchema } from "@switchboard/slack";
import type { z } from "zod";

export const PLATFORMS = ["matrix", "discord", "slack"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_SECTION_SCHEMAS = {
  matrix: matrixAdapterConfigSchema.strict(),
  discord: discordAdapterConfigSchema.strict(),
  slack: slackAdapterConfigSchema.strict(),
} satisfies Record<Platform, z.ZodType>;

export const PLATFORM_TITLES: Record<Platform, string> = {
  matrix: "Matrix",
  discord: "Discord",
  slack: "Slack",
};
