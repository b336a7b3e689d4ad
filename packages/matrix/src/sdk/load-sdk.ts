import { createRequire } from "node:module";
import type * as MatrixSdkModule from "matrix-bot-sdk";
import { replaceSdkDependency } from "../library-patches.ts";
import { fetchRequest } from "./fetch-request.ts";

export type MatrixSdk = typeof MatrixSdkModule;

/** Whether end-to-end encryption can run (the WASM crypto loaded), and if not, why. */
export type CryptoSupport =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string };

export interface LoadedSdk {
  readonly sdk: MatrixSdk;
}

const CRYPTO_BINDING = "@matrix-org/matrix-sdk-crypto-nodejs";
const REQUEST_PACKAGE = "request";

/** Thrown when code reaches into the crypto binding while end-to-end encryption is not running. */
export class E2eeUnavailableError extends Error {
  constructor(member: string, reason: string) {
    super(`end-to-end encryption is unavailable (${reason}); cannot use ${CRYPTO_BINDING}.${member}`);
    this.name = "E2eeUnavailableError";
  }
}

let loaded: LoadedSdk | undefined;
/** The WASM-backed binding, once `loadWasmCrypto` has loaded it. */
let binding: Record<string, unknown> | undefined;

/**
 * Loads matrix-bot-sdk on first use, with two modules it would require replaced in the require
 * cache before it loads:
 * - its native crypto binding (`@matrix-org/matrix-sdk-crypto-nodejs`, a binary its install
 *   script downloads, for Node ≥ 24) by our binding on the WASM crypto, which `loadWasmCrypto`
 *   loads when encryption is on; until then any use throws E2eeUnavailableError;
 * - the deprecated `request` package by a stand-in that throws if called: every request goes
 *   through `setRequestFn(fetchRequest)` (Node's fetch), so `request` is never loaded.
 * This is why nothing else in the package imports the SDK's values directly.
 */
export function loadMatrixSdk(): LoadedSdk {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const sdkRequire = createRequire(require.resolve("matrix-bot-sdk"));
  replaceSdkDependency(sdkRequire, sdkRequire.resolve(CRYPTO_BINDING), cryptoBindingStandIn());
  replaceSdkDependency(sdkRequire, sdkRequire.resolve(REQUEST_PACKAGE), () => {
    throw new Error("the request package is not used: matrix-bot-sdk's requests go through fetch");
  });
  const sdk = require("matrix-bot-sdk") as MatrixSdk;
  sdk.setRequestFn(fetchRequest);
  loaded = { sdk };
  return loaded;
}

/** Loads the WASM crypto (about 8 MB of WebAssembly) on first use; says why when it cannot. */
export async function loadWasmCrypto(): Promise<CryptoSupport> {
  if (binding) return { available: true };
  try {
    const { olmBinding } = await import("../crypto/olm-binding.ts");
    binding = olmBinding;
    return { available: true };
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    return {
      available: false,
      reason: `the WASM crypto (@matrix-org/matrix-sdk-crypto-wasm) did not load: ${detail}`,
    };
  }
}

/** Any use — call, `new`, or a static member like `OlmMachine.initialize` — throws E2eeUnavailableError. */
function unavailableMember(name: string, reason: string): unknown {
  const fail = () => {
    throw new E2eeUnavailableError(name, reason);
  };
  return new Proxy(fail, {
    apply: fail,
    construct: fail,
    get: (_target, member) =>
      typeof member === "symbol" ? undefined : unavailableMember(`${name}.${member}`, reason),
  });
}

function cryptoBindingStandIn(): object {
  return new Proxy(
    {},
    {
      get(_target, member) {
        // Module-loader probes (`__esModule`, `then`, symbols) must see "absent", not a member.
        if (typeof member === "symbol" || member === "then" || member === "__esModule") return undefined;
        return binding ? binding[member] : unavailableMember(member, "matrix.encryption is off");
      },
    },
  );
}
