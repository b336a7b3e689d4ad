import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../runtime/logger.ts";
import { extractiveSummary, Summarizer } from "./summarize.ts";

const user = (text: string) => ({ role: "user" as const, text });
const bot = (text: string) => ({ role: "bot" as const, text });

describe("extractiveSummary", () => {
  it.each([
    { name: "nothing", lines: [], expected: "Nothing was said." },
    {
      name: "one message: its first two sentences",
      lines: [user("Hi there. My printer is broken! It jams. Help.")],
      expected: "Hi there. My printer is broken!",
    },
    {
      name: "a session: the user's opening and last message, and the length",
      lines: [
        user("My invoice is wrong. It says 50."),
        bot("Let me check."),
        user("Also refund me please."),
        bot("Done."),
      ],
      expected:
        'The user opened with: "My invoice is wrong". Last the user wrote: "Also refund me please". 4 messages in total.',
    },
    {
      name: "only bot lines",
      lines: [bot("Reminder: standup."), bot("Again.")],
      expected: 'The bot opened with: "Reminder: standup". 2 messages in total.',
    },
  ])("$name", ({ lines, expected }) => {
    expect(extractiveSummary(lines)).toBe(expected);
  });

  it("keeps long messages short", () => {
    expect(extractiveSummary([user("x".repeat(1_000))]).length).toBeLessThanOrEqual(240);
  });
});

describe("Summarizer", () => {
  const lines = [user("Where is my parcel?"), bot("It ships Monday.")];

  it("uses the model's text", async () => {
    const model = fakeModel().respond(new AIMessage("The user asked about a parcel; it ships Monday."));
    expect(await new Summarizer(model, createMemoryLogger()).summarize(lines)).toBe(
      "The user asked about a parcel; it ships Monday.",
    );
    expect(String(model.calls[0]?.messages[0]?.content)).toContain("user: Where is my parcel?");
  });

  it("falls back to an extractive summary when the model fails, and logs why", async () => {
    const logger = createMemoryLogger();
    const model = fakeModel().respond(new Error("invalid api key"));
    expect(await new Summarizer(model, logger).summarize(lines)).toBe(extractiveSummary(lines));
    expect(logger.lines).toMatchObject([
      { level: "warn", message: "summary model failed; using an extractive summary" },
    ]);
  });

  it("falls back when the model returns nothing, keeping the earlier digest", async () => {
    const model = fakeModel().respond(new AIMessage(""));
    expect(
      await new Summarizer(model, createMemoryLogger()).summarize(lines, {
        earlierDigest: "Before: greetings.",
      }),
    ).toBe(`Before: greetings. ${extractiveSummary(lines)}`);
  });
});
