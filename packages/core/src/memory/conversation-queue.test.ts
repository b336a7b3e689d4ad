import { describe, expect, it } from "vitest";
import { ConversationQueue } from "./conversation-queue.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("ConversationQueue", () => {
  it("runs one conversation's jobs in order, one at a time, and survives a failed job", async () => {
    const queue = new ConversationQueue();
    const log: string[] = [];
    const job =
      (name: string, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await tick();
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const first = queue.run("a", job("1", true));
    const second = queue.run("a", job("2"));
    await expect(first).rejects.toThrow("1");
    expect(await second).toBe("2");
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("lets different conversations overlap; idle waits for all, even work queued meanwhile", async () => {
    const queue = new ConversationQueue();
    const log: string[] = [];
    void queue.run("a", async () => {
      log.push("a starts");
      await tick();
      void queue.run("c", async () => {
        await tick();
        log.push("c done");
      });
      log.push("a done");
    });
    void queue.run("b", async () => {
      log.push("b starts");
    });
    await queue.idle();
    expect(log.slice(0, 2)).toEqual(["a starts", "b starts"]);
    expect(log).toContain("c done");
    expect(queue.pending).toBe(0);
  });
});
