import { describe, expect, it } from "vitest";
import { renderSystemdUnit, ServiceUnitError, type ServiceUnitInput } from "./systemd-unit.ts";

const BASE: ServiceUnitInput = {
  user: "switchboard",
  workingDirectory: "/srv/switchboard",
  command: ["/usr/bin/node", "/opt/switchboard/main.js", "start"],
  environmentFile: "/etc/switchboard/switchboard.env",
  lockTtlSeconds: 30,
};

/** The value of `key=` in the unit (the first one). */
function settingOf(unit: string, key: string): string | undefined {
  return unit
    .split("\n")
    .find((line) => line.startsWith(`${key}=`))
    ?.slice(key.length + 1);
}

describe("renderSystemdUnit", () => {
  it("runs start as the service account, from the working directory, with the secrets file", () => {
    const unit = renderSystemdUnit(BASE);
    expect(settingOf(unit, "User")).toBe("switchboard");
    expect(settingOf(unit, "WorkingDirectory")).toBe("/srv/switchboard");
    expect(settingOf(unit, "EnvironmentFile")).toBe("/etc/switchboard/switchboard.env");
    expect(settingOf(unit, "ExecStart")).toBe("/usr/bin/node /opt/switchboard/main.js start");
    // `systemctl reload` sends SIGHUP: start reloads switchboard.yaml.
    expect(settingOf(unit, "ExecReload")).toBe("/bin/kill -HUP $MAINPID");
    expect(settingOf(unit, "Restart")).toBe("on-failure");
    expect(settingOf(unit, "WantedBy")).toBe("multi-user.target");
  });

  it.each([
    [5, "5s"],
    [30, "30s"],
    [120, "120s"],
  ])("gives a clean stop (SIGTERM) at most the lock TTL of %i s", (lockTtlSeconds, timeout) => {
    const unit = renderSystemdUnit({ ...BASE, lockTtlSeconds });
    expect(settingOf(unit, "KillSignal")).toBe("SIGTERM");
    expect(settingOf(unit, "TimeoutStopSec")).toBe(timeout);
  });

  it.each([
    ["/srv/my bots/switchboard.yaml", '"/srv/my bots/switchboard.yaml"'],
    ["/srv/100%/switchboard.yaml", "/srv/100%%/switchboard.yaml"],
    ["/srv/$HOME/switchboard.yaml", '"/srv/$$HOME/switchboard.yaml"'],
    ['/srv/say "hi"/a\\b.yaml', '"/srv/say \\"hi\\"/a\\\\b.yaml"'],
    ["--config", "--config"],
  ])("writes the argument %s so systemd passes it on unchanged: %s", (argument, written) => {
    const unit = renderSystemdUnit({ ...BASE, command: ["/usr/bin/node", argument] });
    expect(settingOf(unit, "ExecStart")).toBe(`/usr/bin/node ${written}`);
  });

  it("escapes specifiers in paths", () => {
    const unit = renderSystemdUnit({
      ...BASE,
      workingDirectory: "/srv/50%off",
      environmentFile: "/etc/%i.env",
    });
    expect(settingOf(unit, "WorkingDirectory")).toBe("/srv/50%%off");
    expect(settingOf(unit, "EnvironmentFile")).toBe("/etc/%%i.env");
  });

  it.each([
    [{ user: "root" }, /refusing to run Switchboard as root/],
    [{ user: "bad user" }, /not a valid user name/],
    [{ user: "x\n[Service]\nExecStartPre=/bin/evil" }, /line break/],
    [{ workingDirectory: "relative/dir" }, /absolute paths/],
    [{ environmentFile: "secrets.env" }, /absolute paths/],
    [{ command: ["node", "main.js"] }, /absolute paths/],
    [{ command: ["/usr/bin/node", "a\nb"] }, /line break/],
  ] as const)("refuses %o", (change, message) => {
    expect(() => renderSystemdUnit({ ...BASE, ...change })).toThrow(ServiceUnitError);
    expect(() => renderSystemdUnit({ ...BASE, ...change })).toThrow(message);
  });
});
