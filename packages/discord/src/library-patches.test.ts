/**
 * The discord.js internal library-patches.ts wraps, on the real discord.js: this fails when an
 * upgrade changes it, before the patch silently stops working.
 */
import { createMemoryLogger } from "@switchboard/core/testing";
import { Client, Status } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { skipUnreadablePackets } from "./library-patches.ts";

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.destroy();
});

function client(): Client {
  const made = new Client({ intents: [] });
  clients.push(made);
  return made;
}

interface PacketEntry {
  handlePacket(packet: unknown, shard: unknown): boolean;
  status: Status;
}

describe("the discord.js internal the Discord adapter wraps", () => {
  it("the WebSocketManager handles each dispatch through handlePacket(packet, shard)", () => {
    const manager = client().ws as unknown as PacketEntry;
    expect(typeof manager.handlePacket).toBe("function");
    expect(manager.handlePacket.length).toBe(2);
  });

  it("a dispatch discord.js cannot read throws out of handlePacket, and the wrapper logs and skips it", () => {
    const bot = client();
    const manager = bot.ws as unknown as PacketEntry;
    manager.status = Status.Ready;
    const unreadable = { t: "GUILD_CREATE", d: null };
    expect(() => manager.handlePacket(unreadable, undefined)).toThrow();

    const logger = createMemoryLogger();
    skipUnreadablePackets(bot, logger);
    expect(manager.handlePacket(unreadable, undefined)).toBe(true);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ message: "skipped a Discord gateway event that could not be read" }),
    );
  });
});
