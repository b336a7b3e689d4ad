import { runAdapterContract } from "@switchboard/core/testing";
import { createSlackHarness } from "./support/slack/slack-harness.ts";

// The same contract over both ways Slack delivers events: signed HTTP requests and Socket Mode.
runAdapterContract("slack (HTTP Events API)", () => createSlackHarness("http"));
runAdapterContract("slack (Socket Mode)", () => createSlackHarness("socket"));
