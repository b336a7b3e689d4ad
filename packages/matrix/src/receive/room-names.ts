import { cachedPlaceLookup, type Logger } from "@switchboard/core/adapter";
import { describeRequestFailure } from "../sdk/request-failure.ts";

type StateReader = (roomId: string, type: string, stateKey: string) => Promise<Record<string, unknown>>;

/**
 * A room's readable name: its `m.room.name`, else its canonical alias; undefined when it has
 * neither (clients then make one up from the members). Read from room state once per room and ten minutes.
 */
export function matrixRoomNames(
  readState: StateReader,
  logger: Logger,
): (roomId: string) => Promise<string | undefined> {
  const stateText = async (roomId: string, type: string, field: string): Promise<string | undefined> => {
    try {
      const value = (await readState(roomId, type, ""))[field];
      return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
    } catch (error) {
      // No such state event is the usual answer for unnamed rooms; anything else is worth a line.
      if (describeRequestFailure(error).status !== 404) throw error;
      return undefined;
    }
  };
  return cachedPlaceLookup(
    async (roomId) =>
      (await stateText(roomId, "m.room.name", "name")) ??
      (await stateText(roomId, "m.room.canonical_alias", "alias")),
    (error, roomId) =>
      logger.debug("could not read a Matrix room's name", {
        roomId,
        error: describeRequestFailure(error).message,
      }),
  );
}
