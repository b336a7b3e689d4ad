/**
 * The platform sections of switchboard.yaml. Each adapter package owns the shape of its section
 * (`matrixAdapterConfigSchema`, `discordAdapterConfigSchema`, `slackAdapterConfigSchema`); a section
 * present in the file — even empty, with its secrets in the environment — enables that platform.
 */
import { z } from "zod";

export const PLATFORMS = ["matrix", "discord", "slack"] as const;
export type Platform = (typeof PLATFORMS)[number];

// Until an adapter package exports its schema, its section is any mapping, and starting with it
// fails with "not available" (app/platform-adapters.ts). Replace each line with the adapter's schema.
const adapterSectionPending = z.record(z.string(), z.unknown());
export const PLATFORM_SECTION_SCHEMAS = {
  matrix: adapterSectionPending,
  discord: adapterSectionPending,
  slack: adapterSectionPending,
} satisfies Record<Platform, z.ZodType>;

export type PlatformSections = {
  readonly [P in Platform]?: z.output<(typeof PLATFORM_SECTION_SCHEMAS)[P]>;
};

export const PLATFORM_TITLES: Record<Platform, string> = {
  matrix: "Matrix",
  discord: "Discord",
  slack: "Slack",
};
