const DISCORD_EPOCH = 1_420_070_400_000n;
let increment = 0n;

/** A fresh snowflake whose timestamp is now, as discord.js reads it back (`createdTimestamp`). */
export function nextSnowflake(at = Date.now()): string {
  increment = (increment + 1n) % 4096n;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
}
