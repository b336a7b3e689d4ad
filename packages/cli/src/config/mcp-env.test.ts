import { describe, expect, it } from "vitest";
import { withPassedEnv } from "./mcp-env.ts";
import { configFileSchema } from "./schema.ts";

describe("withPassedEnv", () => {
  const config = configFileSchema.parse({
    mcp: {
      servers: [
        {
          name: "files",
          transport: "stdio",
          command: "npx",
          env: { HTTPS_PROXY: "http://from-the-file:3128" },
          passEnv: ["NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "NOT_SET"],
        },
        { name: "tracker", transport: "http", url: "http://127.0.0.1:9/mcp" },
      ],
    },
  });

  it("copies only the named variables that are set; the file's env wins", () => {
    const env = {
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      HTTPS_PROXY: "http://env:3128",
      OPENAI_API_KEY: "sk-secret",
    };
    const [files, tracker] = withPassedEnv(config, env).mcp.servers;
    expect(files?.transport === "stdio" && files.env).toEqual({
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      HTTPS_PROXY: "http://from-the-file:3128",
    });
    expect(tracker).toEqual(config.mcp.servers[1]);
  });

  it("refuses a name that is not a variable name", () => {
    expect(
      configFileSchema.safeParse({
        mcp: { servers: [{ name: "x", transport: "stdio", command: "y", passEnv: ["A=B"] }] },
      }).success,
    ).toBe(false);
  });
});
