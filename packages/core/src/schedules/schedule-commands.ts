import type { Command } from "../commands/command.ts";
import type { Clock } from "../runtime/clock.ts";
import { scheduleIdsFor } from "./schedule-maker.ts";
import { changeSchedule, type ScheduleAction, type ScheduleRecord } from "./schedule-record.ts";
import { ownerKeyOf, type ScheduleStore } from "./schedule-store.ts";
import { scheduleLine } from "./schedule-texts.ts";
import { formatInZone } from "./schedule-time.ts";

/** Who asks: a platform user id, or the operator console (an admin everywhere). */
export interface ScheduleController {
  readonly id: string;
  readonly platform?: string;
  readonly admin?: boolean;
}

export interface ScheduleControlsOptions {
  readonly store: ScheduleStore;
  /** Platform user ids who may change anyone's schedule. */
  readonly admins: readonly string[];
  readonly clock: Clock;
  /** A schedule is active again: the firing side looks at its next fire. */
  readonly resumed: (record: ScheduleRecord) => void;
}

export interface ControlResult {
  readonly sentence: string;
  readonly record?: ScheduleRecord;
}

/**
 * Pause, resume and cancel for the people a schedule belongs to: the person who made it, or an
 * admin (operators' schedules: admins only). The change is made under the schedule's lock, so a
 * fire happening at the same moment never undoes it.
 */
export class ScheduleControls {
  readonly #options: ScheduleControlsOptions;

  constructor(options: ScheduleControlsOptions) {
    this.#options = options;
  }

  async find(idText: string): Promise<ScheduleRecord | undefined> {
    for (const id of scheduleIdsFor(idText)) {
      const record = await this.#options.store.get(id);
      if (record) return record;
    }
    return undefined;
  }

  async control(
    idText: string,
    action: ScheduleAction,
    by: ScheduleController,
    prefix = "/",
  ): Promise<ControlResult> {
    const { store, clock } = this.#options;
    const found = await this.find(idText);
    if (!found) return { sentence: `There is no schedule ${idText.trim()}. ${prefix}schedules lists yours.` };
    if (!this.mayControl(found, by))
      return {
        sentence:
          found.source === "config"
            ? `Schedule ${found.id} is set up by the operator; only an admin can ${action} it.`
            : `Only the person who made schedule ${found.id} or an admin can ${action} it.`,
        record: found,
      };
    const outcome = await store.update(found.id, async (record) => {
      const change = changeSchedule(record, action, by.id, clock.now());
      return "refused" in change
        ? { result: { sentence: change.refused, record } }
        : {
            record: change.record,
            result: { sentence: appliedSentence(change.record, action, prefix), record: change.record },
          };
    });
    if (!outcome) return { sentence: `There is no schedule ${found.id}.` };
    if (action === "resume" && outcome.record?.status === "active") this.#options.resumed(outcome.record);
    return outcome;
  }

  mayControl(record: ScheduleRecord, by: ScheduleController): boolean {
    if (by.admin === true || this.#options.admins.includes(by.id)) return true;
    return (
      record.source === "chat" &&
      by.id === record.ownerId &&
      (by.platform ?? record.home.post.platform) === record.home.post.platform
    );
  }
}

function appliedSentence(record: ScheduleRecord, action: ScheduleAction, prefix: string): string {
  switch (action) {
    case "pause":
      return `Paused schedule ${record.id} (${record.title}). ${prefix}schedule resume ${record.id} continues it.`;
    case "cancel":
      return `Cancelled schedule ${record.id} (${record.title}); it will not run again.`;
    case "resume":
      return `Resumed schedule ${record.id} (${record.title}); next run ${record.nextFireAt === undefined ? "none" : formatInZone(record.nextFireAt, record.timeZone)}.`;
  }
}

/** `/schedules` and `/schedule …`: the thread's and the asker's schedules, one schedule's fires, and the controls. */
export function scheduleCommands(options: { store: ScheduleStore; controls: ScheduleControls }): Command[] {
  const { store, controls } = options;
  return [
    {
      name: "schedules",
      summary: "list this thread's schedules and yours",
      async run({ key, message, prefix }) {
        const here = await store.inHome(key);
        const mine = await store.ofOwner(
          ownerKeyOf({
            ownerId: message.author.id,
            home: { key, post: message.conversation },
            source: "chat",
          }),
        );
        const elsewhere = mine.filter((record) => record.home.key !== key);
        if (here.length === 0 && elsewhere.length === 0)
          return {
            reply: `No schedules here, and none of yours. Ask for one in words ("remind me tomorrow at 9 to send the invoice", "every Monday at 8, summarise this channel").`,
          };
        const lines: string[] = [];
        if (here.length > 0)
          lines.push("Schedules in this thread:", ...here.map((record) => `- ${scheduleLine(record)}`));
        if (elsewhere.length > 0)
          lines.push("Your schedules elsewhere:", ...elsewhere.map((record) => `- ${scheduleLine(record)}`));
        lines.push(
          `${prefix}schedule <id> shows one; ${prefix}schedule pause|resume|cancel <id> changes it.`,
        );
        return { reply: lines.join("\n") };
      },
    },
    {
      name: "schedule",
      usage: "<id> | pause <id> | resume <id> | cancel <id>",
      summary: "show a schedule, or pause, resume or cancel it",
      async run({ args, message, prefix }) {
        const [first = "", second = "", ...rest] = args.split(/\s+/).filter((word) => word !== "");
        const action = first.toLowerCase();
        if (action === "pause" || action === "resume" || action === "cancel") {
          if (second === "") return { reply: `Which schedule? ${prefix}schedule ${action} <id>` };
          const by = { id: message.author.id, platform: message.conversation.platform };
          return { reply: (await controls.control(second, action, by, prefix)).sentence };
        }
        if (first === "" || rest.length > 0 || second !== "")
          return {
            reply: `Usage: ${prefix}schedule <id>, or ${prefix}schedule pause|resume|cancel <id>. ${prefix}schedules lists them.`,
          };
        const record = await controls.find(first);
        if (!record) return { reply: `There is no schedule ${first}. ${prefix}schedules lists yours.` };
        const fires = await store.fires(record.id, 5);
        const lines = [
          `**${record.id} · ${record.title}** (made by ${record.source === "config" ? "the operator" : record.ownerId})`,
          scheduleLine(record),
        ];
        if (fires.length > 0) {
          lines.push("Last runs:");
          for (const fire of fires)
            lines.push(
              `- ${formatInZone(fire.dueAt, record.timeZone)}: ${fire.outcome ?? "running"}${fire.error ? ` (${fire.error})` : ""}`,
            );
        }
        return { reply: lines.join("\n") };
      },
    },
  ];
}
