import { runAdapterContract } from "@switchboard/core/testing";
import { createMatrixHarness } from "./support/matrix/contract-harness.ts";

runAdapterContract("matrix", createMatrixHarness);
