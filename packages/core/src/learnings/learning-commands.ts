import type { Command } from "../commands/command.ts";
import type { Learnings, ListedLearning } from "./learnings.ts";
import type { LearningScope } from "./learnings-config.ts";

const TITLES: Readonly<Record<LearningScope, string>> = {
  user: "About you",
  conversation: "About this conversation",
  place: "About this place",
};

/** An id as learnings spell them (five letters and digits); anything else is not a learning's. */
const LEARNING_ID = /^[a-z0-9]{5}$/i;

/**
 * `/learnings` lists what the team keeps that the asker may see (their own, this conversation's,
 * this place's); `/forget <id>` deletes one of those. Memory's `/forget` (and `/forget confirm`)
 * keeps working: `base` answers whatever is not a learning's id.
 */
export function learningCommands(learnings: Learnings, base?: Command): Command[] {
  if (!learnings.config.enabled) return base ? [base] : [];
  return [
    {
      name: "learnings",
      summary: "what I keep about you, this conversation and this place (delete one with /forget <id>)",
      async run({ key, message, prefix }) {
        const listed = await learnings.visibleTo(key, message.author.id);
        if (listed.length === 0)
          return {
            reply: "I keep no learnings about you or this place yet. Ask me to remember something.",
          };
        return { reply: formatListing(listed, learnings.config.scopes, prefix) };
      },
    },
    {
      name: "forget",
      usage: base?.usage ? `<learning id> | ${base.usage}` : "<learning id>",
      summary: base
        ? `delete one learning (\`forget <id>\`), or ${base.summary}`
        : "delete one of the learnings /learnings lists",
      async run(context) {
        const { key, message, args, prefix } = context;
        if (LEARNING_ID.test(args)) {
          const gone = await learnings.forget(key, message.author.id, args);
          if (gone) return { reply: `Forgotten: [${gone.id}] ${gone.text}` };
          return {
            reply: `You have no learning [${args.toLowerCase()}] here. \`${prefix}learnings\` lists those you can delete.`,
          };
        }
        if (base) return base.run(context);
        return { reply: `Send \`${prefix}forget <id>\` with an id from \`${prefix}learnings\`.` };
      },
    },
  ];
}

function formatListing(listed: readonly ListedLearning[], scopes: readonly LearningScope[], prefix: string) {
  const lines = ["**Learnings**"];
  for (const scope of scopes) {
    const ofScope = listed.filter((learning) => learning.scope === scope);
    if (ofScope.length === 0) continue;
    lines.push("", `${TITLES[scope]}:`);
    for (const learning of [...ofScope].reverse())
      lines.push(
        `- \`${learning.id}\` ${learning.text} (${new Date(learning.at).toISOString().slice(0, 10)})`,
      );
  }
  lines.push("", `Delete one with \`${prefix}forget <id>\`.`);
  return lines.join("\n");
}
