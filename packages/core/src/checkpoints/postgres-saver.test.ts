import { expect, it } from "vitest";
import { CheckpointOptionError } from "./errors.ts";
import { openPostgresSaver, type PrunedPostgresSaver } from "./postgres-saver.ts";
import {
  describeWithPostgres,
  dropTestSchema,
  TEST_POSTGRES_URL,
  uniqueTestSchema,
} from "./postgres-test-support.ts";
import { registerCheckpointerValidation } from "./validation-suite.ts";

describeWithPostgres("PrunedPostgresSaver against the test Postgres", () => {
  // A schema per instance: the suite's list cases count every checkpoint the saver holds.
  registerCheckpointerValidation<PrunedPostgresSaver>("PrunedPostgresSaver", (keepCheckpoints) => ({
    createCheckpointer: () =>
      openPostgresSaver({
        connectionString: TEST_POSTGRES_URL,
        schema: uniqueTestSchema("validation"),
        keepCheckpoints,
      }),
    destroyCheckpointer: async (saver) => {
      await saver.end();
      await dropTestSchema(saver.schema);
    },
  }));

  it("openPostgresSaver refuses a schema name that is not a plain identifier", async () => {
    await expect(
      openPostgresSaver({ connectionString: TEST_POSTGRES_URL, schema: 'x"; DROP TABLE y; --' }),
    ).rejects.toBeInstanceOf(CheckpointOptionError);
  });
});
