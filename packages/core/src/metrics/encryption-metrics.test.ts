import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { type EncryptionCounts, EncryptionMetrics } from "./encryption-metrics.ts";

describe("EncryptionMetrics", () => {
  it("reports the adapter's decryption failures and waiting events as they are when scraped", async () => {
    const registry = new Registry();
    let counts: EncryptionCounts | undefined = { decryptionFailures: { missing_key: 2 }, waiting: 1 };
    new EncryptionMetrics(registry, new Map([["matrix", () => counts]]));
    const first = await registry.metrics();
    expect(first).toContain(
      'switchboard_decryption_failures_total{platform="matrix",reason="missing_key"} 2',
    );
    expect(first).toContain('switchboard_undecryptable_events_waiting{platform="matrix"} 1');
    counts = { decryptionFailures: { missing_key: 3, unverified_device: 1 }, waiting: 0 };
    const second = await registry.metrics();
    expect(second).toContain(
      'switchboard_decryption_failures_total{platform="matrix",reason="missing_key"} 3',
    );
    expect(second).toContain(
      'switchboard_decryption_failures_total{platform="matrix",reason="unverified_device"} 1',
    );
    expect(second).toContain('switchboard_undecryptable_events_waiting{platform="matrix"} 0');
    // Encryption not active in this process (a worker, or off): no figures.
    counts = undefined;
    expect(await registry.metrics()).not.toContain(
      'switchboard_undecryptable_events_waiting{platform="matrix"}',
    );
  });
});
