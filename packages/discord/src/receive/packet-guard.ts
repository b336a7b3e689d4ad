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
