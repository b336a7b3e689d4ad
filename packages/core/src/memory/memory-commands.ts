import type { Command } from "../commands/command.ts";
import type { ArchiveStore } from "./archive/archive-store.ts";
import type { MemoryBook } from "./memory-book.ts";
import type { MemoryInvoker } from "./memory-invoker.ts";

const SHOWN_ENTRIES = 10;

/** /memory shows what is remembered here; /forget deletes it, after `/forget confirm`. */
export function memoryCommands(deps: {
  book: MemoryBook;
  archive: ArchiveStore;
  invoker: MemoryInvoker;
  /** Messages of the live session not summarized yet (they wait for the next flush). */
  pendingMessages: (key: string) => Promise<number>;
  flushEvery: number;
  /** Deletes the conversation's files too; returns how many. */
  forgetAlso?: (key: string) => Promise<number>;
}): Command[] {
  const { book, archive, invoker } = deps;
  return [
    {
      name: "memory",
      summary: "show what I remember about this conversation",
      async run({ key }) {
        const [context, entries, total, sessions, pending] = await Promise.all([
          book.context(key),
          book.recentEntries(key, SHOWN_ENTRIES),
          book.entryCount(key),
          archive.count(key),
          deps.pendingMessages(key),
        ]);
        const waiting =
          pending > 0
            ? `The latest ${pending} message${pending === 1 ? " is" : "s are"} not summarized yet: I do that every ${deps.flushEvery} messages and when the conversation goes quiet.`
            : undefined;
        if (!context && total === 0 && sessions === 0)
          return { reply: waiting ?? "I don't remember anything about this conversation yet." };
        const lines = [
          "**What I remember about this conversation**",
          "",
          "Context:",
          context?.content.trim() || "(not written yet)",
        ];
        if (entries.length > 0) {
          lines.push(
            "",
            `Latest of ${total} remembered messages:`,
            ...entries.map((entry) => `- ${entry.role}: ${entry.summary}`),
          );
        }
        if (waiting) lines.push("", waiting);
        lines.push("", `Earlier sessions archived: ${sessions}.`);
        return { reply: lines.join("\n") };
      },
    },
    {
      name: "forget",
      usage: "[confirm]",
      summary: "delete everything I remember about this conversation (asks first)",
      async run({ key, args, prefix }) {
        if (args.toLowerCase() !== "confirm") {
          const [total, sessions] = await Promise.all([book.entryCount(key), archive.count(key)]);
          return {
            reply:
              `This deletes everything I remember about this conversation (${total} remembered messages, its context ` +
              `and ${sessions} earlier sessions${deps.forgetAlso ? ", and the files sent here" : ""}) and clears its history. Send \`${prefix}forget confirm\` to go ahead.`,
          };
        }
        const forgotten = await invoker.forget(key);
        const files = deps.forgetAlso ? await deps.forgetAlso(key) : undefined;
        const andFiles = files === undefined ? "" : ` and ${files} file${files === 1 ? "" : "s"}`;
        return {
          reply: `Forgotten: ${forgotten.entries} remembered messages, the context${andFiles} and ${forgotten.sessions} earlier sessions of this conversation.`,
        };
      },
    },
  ];
}
