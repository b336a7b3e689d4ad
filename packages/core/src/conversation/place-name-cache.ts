import { LRUCache } from "lru-cache";

/** Long enough that a console page of many threads in one room costs one lookup; short enough to see a rename. */
const NAME_TTL_MS = 10 * 60_000;
const MAX_PLACES = 2_000;

/**
 * A room or channel name lookup that asks the platform once per place and TTL: concurrent asks
 * share one call, a name is kept for ten minutes, and a failed or empty lookup is not kept (the
 * next ask tries again). Adapters wrap their `describePlace` platform calls in it.
 */
export function cachedPlaceLookup(
  lookup: (placeId: string) => Promise<string | undefined>,
  onError: (error: unknown, placeId: string) => void,
): (placeId: string) => Promise<string | undefined> {
  const names = new LRUCache<string, string>({
    max: MAX_PLACES,
    ttl: NAME_TTL_MS,
    fetchMethod: async (placeId) => {
      try {
        return await lookup(placeId);
      } catch (error) {
        onError(error, placeId);
        return undefined;
      }
    },
  });
  return (placeId) => names.fetch(placeId);
}
