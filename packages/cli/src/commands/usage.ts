import { openStore, systemClock } from "@switchboard/core";
import { daysBetween, usageTable } from "@switchboard/core/host";
import { UsageBook } from "@switchboard/core/records";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { loadConfig } from "../config/load-config.ts";
import { reportStartupFailure } from "./startup-failure.ts";

const DAY_MS = 86_400_000;

/**
 * `switchboard usage [--days N]`: top conversations, users, agents and models by cost over the
 * last N UTC days (today included), read from the configured store.
 */
export async function usageCommand(
  options: CommonOptions & { days: number; top: number },
  context: CliContext,
): Promise<number> {
  let store: Awaited<ReturnType<typeof openStore>> | undefined;
  try {
    const { config } = await loadConfig({ path: options.config, cwd: context.cwd, env: context.env });
    store = await openStore(config.store, { cwd: context.cwd });
    const book = new UsageBook(store, { retentionDays: config.usage.retentionDays, clock: systemClock });
    const now = systemClock.now();
    const days = daysBetween(now - (options.days - 1) * DAY_MS, now);
    const [conversations, users, agents, models] = await Promise.all([
      book.top("conversation", days, options.top),
      book.top("user", days, options.top),
      book.top("agent", days, options.top),
      book.top("model", days, options.top),
    ]);
    const period = days.length === 1 ? `${days[0]} (UTC)` : `${days[0]} to ${days.at(-1)} (UTC)`;
    context.stdout.write(
      [
        `Usage ${period}, top ${options.top} by cost (${store.description}):`,
        "",
        usageTable("conversation", conversations),
        "",
        usageTable("user", users),
        "",
        usageTable("agent", agents),
        "",
        usageTable("model", models),
        "",
      ].join("\n"),
    );
    return 0;
  } catch (error) {
    return reportStartupFailure(error, context.stderr);
  } finally {
    await store?.close();
  }
}
