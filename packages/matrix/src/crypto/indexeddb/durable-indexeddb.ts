import { randomBytes } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import type { KeyValue } from "../../connect/key-value.ts";
import {
  addWriteObserver,
  type IdbDatabase,
  type IdbFactory,
  type IdbKey,
  type IdbKeyRangeClass,
  installIndexedDb,
  requestResult,
  transactionDone,
} from "./idb.ts";

/*
 * The WASM crypto's IndexedDB, made durable in our store. Written by hand: no library persists
 * fake-indexeddb, and the crypto needs exactly one guarantee that a periodic dump cannot give —
 * `checkpoint()` returns only once every change made so far is in the store, so the caller can
 * hold back what must not leave before it (one-time keys, to-device messages, the sync token).
 *
 * Layout (one store key each, so every write is atomic on SQLite and Redis alike):
 *   crypto:<scope>:snapshot   { generation, databases }   the whole state as of batch <generation>
 *   crypto:<scope>:batch:<n>  { databases }               the changes of checkpoint n
 * A start reads the snapshot and applies batches generation+1, +2 … until one is missing. Every
 * `compactAfter` batches the state is written as a new snapshot and the batches it covers deleted.
 * Keys and values are encoded with V8's serializer (IndexedDB's structured clone), in base64.
 */

interface IndexSchema {
  readonly name: string;
  readonly keyPath: string | string[];
  readonly unique: boolean;
  readonly multiEntry: boolean;
}

interface StoreSchema {
  readonly keyPath: string | string[] | null;
  readonly autoIncrement: boolean;
  readonly indexes: readonly IndexSchema[];
}

/** One object store: its schema, and its records by encoded key. */
interface StoreImage {
  schema: StoreSchema;
  records: Map<string, string>;
}

interface DatabaseImage {
  version: number;
  stores: Map<string, StoreImage>;
}

/** A database's changes in one checkpoint. */
interface DatabaseChange {
  readonly version: number;
  /** Present when the schema changed: the full set of stores; stores not named are dropped. */
  readonly schema?: Record<string, StoreSchema>;
  /** Stores whose old records are all dropped before `puts` apply. */
  readonly replaced: readonly string[];
  readonly puts: Record<string, Record<string, string>>;
  readonly deletes: Record<string, readonly string[]>;
}

interface SnapshotRecord {
  readonly generation: number;
  readonly databases: Record<
    string,
    { version: number; stores: Record<string, { schema: StoreSchema; records: Record<string, string> }> }
  >;
}

interface BatchRecord {
  readonly databases: Record<string, DatabaseChange>;
}

/** What changed since the last checkpoint, per physical database. */
interface Pending {
  schema: boolean;
  stores: Set<string>;
  keys: Map<string, Map<string, IdbKey>>;
}

const encode = (value: unknown) => serialize(value).toString("base64");
const decode = (text: string): unknown => deserialize(Buffer.from(text, "base64"));

export interface DurableIndexedDbOptions {
  readonly kv: KeyValue;
  /** Names this state in the store: one device of one account. */
  readonly scope: string;
  /** Batches written before the state is compacted into a new snapshot. */
  readonly compactAfter?: number;
}

/** Thrown when crypto state could not be written: whatever was to follow it must not happen. */
export class CryptoStateWriteError extends Error {
  constructor(cause: unknown) {
    super(
      `could not save the Matrix end-to-end encryption state to the store (${cause instanceof Error ? cause.message : String(cause)}); nothing that depends on it is sent`,
      { cause },
    );
    this.name = "CryptoStateWriteError";
  }
}

export class DurableIndexedDb {
  /** The store name to give the WASM: its databases are named `<prefix>::…`. */
  readonly storeName: string;
  readonly #kv: KeyValue;
  readonly #scope: string;
  readonly #compactAfter: number;
  readonly #factory: IdbFactory;
  readonly #keyRange: IdbKeyRangeClass;
  /** The state as last written to the store, by logical database name. */
  readonly #image = new Map<string, DatabaseImage>();
  readonly #pending = new Map<string, Pending>();
  readonly #connections = new Map<string, Promise<IdbDatabase>>();
  #generation = 0;
  #nextBatch = 1;
  #checkpoints: Promise<void> = Promise.resolve();
  #stopObserving: (() => void) | undefined;
  #bytesWritten = 0;

  constructor(options: DurableIndexedDbOptions) {
    const { factory, keyRange } = installIndexedDb();
    this.#factory = factory;
    this.#keyRange = keyRange;
    this.#kv = options.kv;
    this.#scope = options.scope;
    this.#compactAfter = options.compactAfter ?? 200;
    // A fresh name each start: a restart within one process never meets the last run's databases.
    this.storeName = `switchboard-crypto-${randomBytes(6).toString("hex")}`;
  }

  /** Whether the store held crypto state for this scope (false: a new device starts). */
  async restore(): Promise<boolean> {
    const snapshot = await this.#kv.get(this.#key("snapshot"));
    if (snapshot !== undefined) this.#loadSnapshot(JSON.parse(snapshot) as SnapshotRecord);
    let batch = this.#generation + 1;
    for (; ; batch++) {
      const text = await this.#kv.get(this.#key(`batch:${batch}`));
      if (text === undefined) break;
      this.#applyBatch(JSON.parse(text) as BatchRecord);
    }
    this.#nextBatch = batch;
    await this.#deleteStaleBatches();
    for (const [name, database] of this.#image) await this.#materialize(this.storeName + name, database);
    this.#observe();
    return snapshot !== undefined || batch > 1;
  }

  /**
   * Writes every change made so far to the store; resolves once it is there. Checkpoints run one
   * at a time, in call order. A failed write keeps its changes pending and rejects with
   * CryptoStateWriteError.
   */
  checkpoint(): Promise<void> {
    const run = this.#checkpoints.then(() => this.#writeChanges());
    this.#checkpoints = run.catch(() => undefined);
    return run;
  }

  /** Bytes of crypto state written to the store since start (for operators). */
  get bytesWritten(): number {
    return this.#bytesWritten;
  }

  /** Writes what is pending and lets go of the in-memory databases. */
  async close(): Promise<void> {
    await this.checkpoint();
    await this.discard();
  }

  /** Lets go of the in-memory databases without writing what is pending (a read-only look). */
  async discard(): Promise<void> {
    this.#stopObserving?.();
    this.#pending.clear();
    for (const [name, connection] of this.#connections) {
      (await connection).close();
      this.#connections.delete(name);
    }
    // Not awaited: a connection the WASM still holds would keep the deletion waiting.
    for (const name of this.#image.keys()) this.#factory.deleteDatabase(this.storeName + name);
  }

  #key(name: string): string {
    return `crypto:${this.#scope}:${name}`;
  }

  #observe(): void {
    const mine = (database: string) => database.startsWith(`${this.storeName}::`);
    const pendingFor = (database: string): Pending => {
      let pending = this.#pending.get(database);
      if (!pending) {
        pending = { schema: false, stores: new Set(), keys: new Map() };
        this.#pending.set(database, pending);
      }
      return pending;
    };
    this.#stopObserving = addWriteObserver({
      wrote: (database, store, key) => {
        if (!mine(database)) return;
        const keys = pendingFor(database).keys;
        let storeKeys = keys.get(store);
        if (!storeKeys) {
          storeKeys = new Map();
          keys.set(store, storeKeys);
        }
        storeKeys.set(encode(key), key);
      },
      storeChanged: (database, store) => {
        if (mine(database)) pendingFor(database).stores.add(store);
      },
      schemaChanged: (database) => {
        if (mine(database)) pendingFor(database).schema = true;
      },
    });
  }

  async #writeChanges(): Promise<void> {
    if (this.#pending.size === 0) return;
    const pending = new Map(this.#pending);
    this.#pending.clear();
    try {
      const changes: Record<string, DatabaseChange> = {};
      for (const [physical, what] of pending) {
        const change = await this.#readChange(physical, what);
        if (change) changes[physical.slice(this.storeName.length)] = change;
      }
      if (Object.keys(changes).length === 0) return;
      const batch: BatchRecord = { databases: changes };
      const text = JSON.stringify(batch);
      await this.#kv.set(this.#key(`batch:${this.#nextBatch}`), text);
      this.#bytesWritten += text.length;
      this.#applyBatch(batch);
      this.#nextBatch++;
    } catch (error) {
      this.#requeue(pending);
      throw new CryptoStateWriteError(error);
    }
    if (this.#nextBatch - 1 - this.#generation >= this.#compactAfter) await this.#compact();
  }

  #requeue(pending: Map<string, Pending>): void {
    for (const [database, what] of pending) {
      const now = this.#pending.get(database);
      if (!now) {
        this.#pending.set(database, what);
        continue;
      }
      now.schema ||= what.schema;
      for (const store of what.stores) now.stores.add(store);
      for (const [store, keys] of what.keys) {
        const into = now.keys.get(store) ?? new Map<string, IdbKey>();
        for (const [encoded, key] of keys) into.set(encoded, key);
        now.keys.set(store, into);
      }
    }
  }

  /** Reads the current values of everything pending in one database, in one read transaction. */
  async #readChange(physical: string, pending: Pending): Promise<DatabaseChange | undefined> {
    const db = await this.#connection(physical);
    const storeNames = [...db.objectStoreNames];
    const logical = physical.slice(this.storeName.length);
    const known = this.#image.get(logical);
    const wholeDatabase = pending.schema || known === undefined;
    if (storeNames.length === 0) return undefined;
    const transaction = db.transaction(storeNames, "readonly");
    const done = transactionDone(transaction);
    const schema: Record<string, StoreSchema> = {};
    const replaced: string[] = [];
    const puts: Record<string, Record<string, string>> = {};
    const deletes: Record<string, string[]> = {};
    const reads: Promise<void>[] = [];
    for (const name of storeNames) {
      const store = transaction.objectStore(name);
      schema[name] = {
        keyPath: store.keyPath,
        autoIncrement: store.autoIncrement,
        indexes: [...store.indexNames].map((indexName) => {
          const index = store.index(indexName);
          return {
            name: indexName,
            keyPath: index.keyPath,
            unique: index.unique,
            multiEntry: index.multiEntry,
          };
        }),
      };
      if (wholeDatabase || pending.stores.has(name)) {
        replaced.push(name);
        reads.push(
          Promise.all([requestResult(store.getAllKeys()), requestResult(store.getAll())]).then(
            ([keys, values]) => {
              const records: Record<string, string> = {};
              keys.forEach((key, i) => {
                records[encode(key)] = encode(values[i]);
              });
              puts[name] = records;
            },
          ),
        );
        continue;
      }
      for (const [encoded, key] of pending.keys.get(name) ?? []) {
        reads.push(
          requestResult(store.getAll(this.#keyRange.only(key))).then((values) => {
            if (values.length === 0) {
              const list = deletes[name] ?? [];
              list.push(encoded);
              deletes[name] = list;
              return;
            }
            const records = puts[name] ?? {};
            records[encoded] = encode(values[0]);
            puts[name] = records;
          }),
        );
      }
    }
    await Promise.all(reads);
    await done;
    return {
      version: db.version,
      ...(wholeDatabase ? { schema } : {}),
      replaced,
      puts,
      deletes,
    };
  }

  #connection(physical: string): Promise<IdbDatabase> {
    let connection = this.#connections.get(physical);
    if (!connection) {
      connection = requestResult(this.#factory.open(physical)).then((db) => {
        // The WASM upgrading its schema needs every other connection closed.
        db.onversionchange = () => {
          db.close();
          this.#connections.delete(physical);
        };
        return db;
      });
      this.#connections.set(physical, connection);
    }
    return connection;
  }

  #applyBatch(batch: BatchRecord): void {
    for (const [name, change] of Object.entries(batch.databases)) {
      let database = this.#image.get(name);
      if (!database) {
        database = { version: change.version, stores: new Map() };
        this.#image.set(name, database);
      }
      database.version = change.version;
      if (change.schema) {
        for (const store of [...database.stores.keys()])
          if (!(store in change.schema)) database.stores.delete(store);
        for (const [store, schema] of Object.entries(change.schema)) {
          const image = database.stores.get(store);
          if (image) image.schema = schema;
          else database.stores.set(store, { schema, records: new Map() });
        }
      }
      for (const store of change.replaced) database.stores.get(store)?.records.clear();
      for (const [store, records] of Object.entries(change.puts)) {
        const image = database.stores.get(store);
        if (image) for (const [key, value] of Object.entries(records)) image.records.set(key, value);
      }
      for (const [store, keys] of Object.entries(change.deletes)) {
        const image = database.stores.get(store);
        if (image) for (const key of keys) image.records.delete(key);
      }
    }
  }

  #loadSnapshot(snapshot: SnapshotRecord): void {
    this.#generation = snapshot.generation;
    for (const [name, database] of Object.entries(snapshot.databases)) {
      this.#image.set(name, {
        version: database.version,
        stores: new Map(
          Object.entries(database.stores).map(([store, image]) => [
            store,
            { schema: image.schema, records: new Map(Object.entries(image.records)) },
          ]),
        ),
      });
    }
  }

  async #compact(): Promise<void> {
    const last = this.#nextBatch - 1;
    const databases: SnapshotRecord["databases"] = {};
    for (const [name, database] of this.#image) {
      databases[name] = {
        version: database.version,
        stores: Object.fromEntries(
          [...database.stores].map(([store, image]) => [
            store,
            { schema: image.schema, records: Object.fromEntries(image.records) },
          ]),
        ),
      };
    }
    const snapshot: SnapshotRecord = { generation: last, databases };
    // The snapshot first: until it is written, the batches it replaces are still what a start reads.
    await this.#kv.set(this.#key("snapshot"), JSON.stringify(snapshot));
    const previous = this.#generation;
    this.#generation = last;
    for (let batch = previous + 1; batch <= last; batch++) await this.#kv.delete(this.#key(`batch:${batch}`));
  }

  /** Batches a compaction covered but did not get to delete (it stopped half-way). */
  async #deleteStaleBatches(): Promise<void> {
    for (let batch = this.#generation; batch > 0; batch--) {
      const key = this.#key(`batch:${batch}`);
      if ((await this.#kv.get(key)) === undefined) break;
      await this.#kv.delete(key);
    }
  }

  /** Recreates one database from its image, before the WASM opens it. */
  async #materialize(physical: string, database: DatabaseImage): Promise<void> {
    const request = this.#factory.open(physical, database.version);
    request.onupgradeneeded = () => {
      const db = request.result;
      for (const [name, image] of database.stores) {
        const store = db.createObjectStore(name, {
          keyPath: image.schema.keyPath,
          autoIncrement: image.schema.autoIncrement,
        });
        for (const index of image.schema.indexes)
          store.createIndex(index.name, index.keyPath, {
            unique: index.unique,
            multiEntry: index.multiEntry,
          });
      }
    };
    const db = await requestResult(request);
    const names = [...database.stores.keys()];
    if (names.length > 0) {
      const transaction = db.transaction(names, "readwrite");
      const done = transactionDone(transaction);
      for (const [name, image] of database.stores) {
        const store = transaction.objectStore(name);
        for (const [key, value] of image.records) {
          if (image.schema.keyPath === null) store.put(decode(value), decode(key) as IdbKey);
          else store.put(decode(value));
        }
      }
      await done;
    }
    db.close();
  }
}
