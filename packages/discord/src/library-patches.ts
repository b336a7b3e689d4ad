/**
 * Every place this package reaches into discord.js internals, in one file. Written against
 * discord.js 14.28.1 (with the @discordjs/ws 1.2.3 it brings), pinned to that exact version in
 * package.json; library-patches.test.ts fails when the patched internal changes shape, so an
 * upgrade that breaks the patch fails a test, not a deployment.
 *
 * - Unreadable gateway events are skipped: `client.ws.handlePacket(packet, shard)`, the one entry
 *   through which WebSocketManager turns each dispatch into structures, is wrapped on our client.
 */
import type { Logger } from "@switchboard/core/adapter";
import type { Client } from "discord.js";

interface PacketHandling {
  handlePacket(packet: unknown, shard: unknown): boolean;
}

function eventName(packet: unknown): string | undefined {
  if (typeof packet !== "object" || packet === null) return undefined;
  const name = (packet as { t?: unknown }).t;
  return typeof name === "string" ? name : undefined;
}

/**
 * discord.js turns each gateway dispatch into its structures without guarding against a payload
 * of an unexpected shape (`author: null` throws inside its WebSocket listener, outside any code
 * of ours). One unreadable event is logged and skipped; the connection and every other
 * conversation go on. `handlePacket` is discord.js's one entry for dispatches; it is wrapped on
 * this client only.
 */
export function skipUnreadablePackets(client: Client, logger: Logger): void {
  const manager = client.ws as unknown as PacketHandling;
  const handle = manager.handlePacket.bind(manager);
  manager.handlePacket = (packet, shard) => {
    try {
      return handle(packet, shard);
    } catch (error) {
      logger.warn("skipped a Discord gateway event that could not be read", {
        event: eventName(packet),
        error,
      });
      return true;
    }
  };
}
