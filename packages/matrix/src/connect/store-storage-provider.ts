import type { IFilterInfo, IStorageProvider } from "matrix-bot-sdk";
import type { KeyValue } from "./key-value.ts";

/**
 * matrix-bot-sdk's storage (sync token, filter, small values) kept in our Store, so a restart resumes
 * from where the last handled batch ended. Keys are scoped by the bot's MXID: several bot accounts
 * can share one store.
 */
export class StoreStorageProvider implements IStorageProvider {
  readonly #kv: KeyValue;
  readonly #scope: string;

  constructor(kv: KeyValue, userId: string) {
    this.#kv = kv;
    this.#scope = userId;
  }

  async setSyncToken(token: string | null): Promise<void> {
    if (token === null) await this.#kv.delete(this.#key("sync-token"));
    else await this.#kv.set(this.#key("sync-token"), token);
  }

  async getSyncToken(): Promise<string | null> {
    return (await this.#kv.get(this.#key("sync-token"))) ?? null;
  }

  async setFilter(filter: IFilterInfo): Promise<void> {
    await this.#kv.set(this.#key("filter"), JSON.stringify(filter));
  }

  async getFilter(): Promise<IFilterInfo> {
    const stored = await this.#kv.get(this.#key("filter"));
    // The SDK's type leaves out null, which is what it expects (and checks for) when no filter is stored yet.
    return (stored === undefined ? null : JSON.parse(stored)) as IFilterInfo;
  }

  async storeValue(key: string, value: string): Promise<void> {
    await this.#kv.set(this.#key(`value:${key}`), value);
  }

  async readValue(key: string): Promise<string | null> {
    return (await this.#kv.get(this.#key(`value:${key}`))) ?? null;
  }

  #key(name: string): string {
    return `${this.#scope}:${name}`;
  }
}
