import { Gauge, type Registry } from "prom-client";
import type { StoreHealth } from "../store/types.ts";

/** A networked store's availability (the Redis store), read when scraped. */
export class StoreMetrics {
  constructor(registry: Registry, health: StoreHealth) {
    const registers = [registry];
    new Gauge({
      name: "switchboard_store_up",
      help: "1 while this process's connection to the store is up, 0 while it is down (intake refuses messages meanwhile)",
      registers,
      collect() {
        this.set(health.available ? 1 : 0);
      },
    });
    new Gauge({
      name: "switchboard_store_data_losses",
      help: "Times since start-up the store came back without its data (a Redis restarted without persistence)",
      registers,
      collect() {
        this.set(health.dataLosses);
      },
    });
  }
}
