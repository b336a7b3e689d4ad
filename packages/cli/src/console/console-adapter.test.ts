import type { InboundMessage } from "@switchboard/core";
import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { ConsoleAdapter } from "./console-adapter.ts";

describe("console :reply", () => {
  async function started() {
    const printed: string[] = [];
    const received: InboundMessage[] = [];
    const console = new ConsoleAdapter({
      print: (line) => printed.push(line),
      state: new Keyv<string>(),
      userId: "tester",
    });
    await console.start(async (message) => {
      received.push(message);
    });
    return { console, printed, received };
  }

  it("says so when the id names no bot message, and sends nothing", async () => {
    const { console, printed, received } = await started();
    expect(await console.handleLine(":reply b-nothing are you sure?")).toBeUndefined();
    expect(received).toEqual([]);
    expect(printed.at(-1)).toMatch(/no bot message b-nothing here/);
  });

  it("replies to a bot message it printed", async () => {
    const { console, received } = await started();
    const posted = await console.post({
      conversation: { platform: "console", path: ["main"] },
      text: "hello",
    });
    await console.handleLine(`:reply ${posted.id} thanks`);
    expect(received.map((message) => [message.text, message.replyTo])).toEqual([["thanks", posted.id]]);
  });
});

describe("console answers", () => {
  it("are shown through the markdown renderer when one is given", async () => {
    const printed: string[] = [];
    const console = new ConsoleAdapter({
      print: (line) => printed.push(line),
      state: new Keyv<string>(),
      userId: "tester",
      renderMarkdown: (markdown) => markdown.replaceAll("**", "<b>"),
    });
    await console.post({ conversation: { platform: "console", path: ["main"] }, text: "ask **billing**" });
    expect(printed.at(-1)).toMatch(/> ask <b>billing<b>$/);
  });
});
