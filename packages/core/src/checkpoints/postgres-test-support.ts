import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, inject } from "vitest";

declare module "vitest" {
  interface ProvidedContext {
    /** The test run's Postgres (test/services/global-setup.ts); empty when it has none. */
    testPostgresUrl: string;
  }
}

/**
 * The Postgres this test run uses: the private one the global setup started (test/services/), or
 * the developer's own named by SWITCHBOARD_TEST_POSTGRES_URL. Tests keep to schemas of their own
 * and drop only those.
 */
const givenPostgresUrl = inject("testPostgresUrl") || undefined;

/** Whether this run has a Postgres; without one its tests are skipped (the global setup says why). */
export const TEST_POSTGRES_AVAILABLE = givenPostgresUrl !== undefined;

/** Port 1 refuses at once: a test that forgets to skip without Postgres fails fast and touches nothing. */
export const TEST_POSTGRES_URL: string = givenPostgresUrl ?? "postgres://postgres@127.0.0.1:1/test";

/** `describe`, skipped when this run has no Postgres. */
export const describeWithPostgres = describe.skipIf(!TEST_POSTGRES_AVAILABLE);

export function uniqueTestSchema(label: string): string {
  return `switchboard_test_${label}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

export async function dropTestSchema(schema: string): Promise<void> {
  if (!schema.startsWith("switchboard_test_")) throw new Error(`refusing to drop schema ${schema}`);
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Bytes in the checkpoint tables of `schema`: stored values, checkpoint rows and metadata. */
export async function storedBytesInSchema(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ total: string }>(`
      SELECT
        (SELECT coalesce(sum(coalesce(octet_length(blob), 0)), 0) FROM "${schema}".checkpoint_blobs)
      + (SELECT coalesce(sum(octet_length(blob)), 0) FROM "${schema}".checkpoint_writes)
      + (SELECT coalesce(sum(octet_length(checkpoint::text) + octet_length(metadata::text)), 0)
           FROM "${schema}".checkpoints) AS total`);
    return Number(rows[0]?.total ?? 0);
  } finally {
    await client.end();
  }
}
