import { runAdapterContract } from "../packages/core/src/testing/index.ts";
import { createDiscordHarness } from "./support/discord/contract-harness.ts";

runAdapterContract("discord", () => createDiscordHarness());
