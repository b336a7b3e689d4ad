import Module, { createRequire } from "node:module";
import type * as MatrixSdkModule from "matrix-bot-sdk";

export type MatrixSdk = typeof MatrixSdkModule;

/** Whether the native end-to-end encryption binding could be loaded, and if not, why. */
export type CryptoSupport =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string };

export interface LoadedSdk {
  readonly sdk: MatrixSdk;
  readonly crypto: CryptoSupport;
}

const CRYPTO_BINDING = "@matrix-org/matrix-sdk-crypto-nodejs";

/** Thrown when code reaches into the crypto binding although it could not be loaded. */
export class E2eeUnavailableError extends Error {
  constructor(member: string, reason: string) {
    super(`end-to-end encryption is unavailable (${reason}); cannot use ${CRYPTO_BINDING}.${member}`);
    this.name = "E2eeUnavailableError";
  }
}

let loaded: LoadedSdk | undefined;

/**
 * Loads matrix-bot-sdk on first use. The SDK requires its native crypto binding at load time, even
 * for clients that never encrypt, and that binding is a binary its install script downloads — so it
 * is often missing. When it is, a stand-in that throws E2eeUnavailableError on any use is put in its
 * place in the require cache, so the rest of the SDK loads and unencrypted rooms work. This is why
 * nothing else in the package imports the SDK's values directly.
 */
export function loadMatrixSdk(): LoadedSdk {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const sdkRequire = createRequire(require.resolve("matrix-bot-sdk"));
  let crypto: CryptoSupport = { available: true };
  try {
    sdkRequire(CRYPTO_BINDING);
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    const reason = `the native binding ${CRYPTO_BINDING} did not load: ${detail}`;
    crypto = { available: false, reason };
    installUnavailableBinding(sdkRequire, sdkRequire.resolve(CRYPTO_BINDING), reason);
  }
  loaded = { sdk: require("matrix-bot-sdk") as MatrixSdk, crypto };
  return loaded;
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

function installUnavailableBinding(require: NodeJS.Require, path: string, reason: string): void {
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = new Proxy(
    {},
    {
      get(_target, member) {
        // Module-loader probes (`__esModule`, `then`, symbols) must see "absent", not a member.
        if (typeof member === "symbol" || member === "then" || member === "__esModule") return undefined;
        return unavailableMember(member, reason);
      },
    },
  );
  require.cache[path] = standIn;
}
