import { createRequire } from "node:module";

/*
 * The WASM crypto keeps its state in IndexedDB, which Node does not have. fake-indexeddb (a
 * complete IndexedDB in plain JavaScript, kept in memory) stands in for it; DurableIndexedDb makes
 * what is written there durable in our store. The WASM finds IndexedDB through the global object
 * and checks results with `instanceof IDBDatabase` and friends, so the classes are installed as
 * globals — once per process, and only where no IndexedDB exists already.
 *
 * The TypeScript configuration has no DOM library, so the few IndexedDB members used here are
 * declared below instead of the DOM's types.
 */

export type IdbKey = string | number | Date | ArrayBuffer | ArrayBufferView | IdbKey[];

export interface IdbRequest<T> {
  result: T;
  error: unknown;
  onsuccess: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  addEventListener(type: "success" | "error", listener: () => void): void;
}

export interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: ((event: unknown) => void) | null;
  onblocked: ((event: unknown) => void) | null;
  transaction: IdbTransaction | null;
}

export interface IdbIndex {
  readonly name: string;
  readonly keyPath: string | string[];
  readonly unique: boolean;
  readonly multiEntry: boolean;
}

export interface IdbObjectStore {
  readonly name: string;
  readonly keyPath: string | string[] | null;
  readonly autoIncrement: boolean;
  readonly indexNames: ArrayLike<string> & Iterable<string>;
  readonly transaction: IdbTransaction;
  index(name: string): IdbIndex;
  createIndex(
    name: string,
    keyPath: string | string[],
    options: { unique: boolean; multiEntry: boolean },
  ): IdbIndex;
  put(value: unknown, key?: IdbKey): IdbRequest<IdbKey>;
  add(value: unknown, key?: IdbKey): IdbRequest<IdbKey>;
  delete(query: unknown): IdbRequest<undefined>;
  clear(): IdbRequest<undefined>;
  getAll(query?: unknown): IdbRequest<unknown[]>;
  getAllKeys(query?: unknown): IdbRequest<IdbKey[]>;
}

export interface IdbTransaction {
  readonly db: IdbDatabase;
  objectStore(name: string): IdbObjectStore;
  oncomplete: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onabort: ((event: unknown) => void) | null;
  readonly error: unknown;
}

export interface IdbDatabase {
  readonly name: string;
  readonly version: number;
  readonly objectStoreNames: ArrayLike<string> & Iterable<string>;
  transaction(stores: string | string[], mode?: "readonly" | "readwrite"): IdbTransaction;
  createObjectStore(
    name: string,
    options: { keyPath: string | string[] | null; autoIncrement: boolean },
  ): IdbObjectStore;
  deleteObjectStore(name: string): void;
  close(): void;
  onversionchange: ((event: unknown) => void) | null;
}

export interface IdbFactory {
  open(name: string, version?: number): IdbOpenRequest;
  deleteDatabase(name: string): IdbRequest<undefined>;
}

export interface IdbKeyRangeClass {
  only(key: IdbKey): unknown;
}

interface FakeIndexedDbModule {
  readonly indexedDB: IdbFactory;
  readonly IDBKeyRange: IdbKeyRangeClass & (abstract new (...args: never[]) => unknown);
  readonly IDBObjectStore: { readonly prototype: IdbObjectStore };
  readonly IDBDatabase: { readonly prototype: IdbDatabase };
  readonly [name: string]: unknown;
}

/** Sees every write the WASM makes: (database, object store, key), or a whole store / database changed. */
export interface WriteObserver {
  wrote(database: string, store: string, key: IdbKey): void;
  storeChanged(database: string, store: string): void;
  schemaChanged(database: string): void;
}

const observers = new Set<WriteObserver>();
let installed: FakeIndexedDbModule | undefined;

/** Installs fake-indexeddb as the process's IndexedDB (once) and returns it. */
export function installIndexedDb(): { readonly factory: IdbFactory; readonly keyRange: IdbKeyRangeClass } {
  if (!installed) {
    const fake = createRequire(import.meta.url)("fake-indexeddb") as FakeIndexedDbModule;
    const global = globalThis as Record<string, unknown>;
    if (global.indexedDB !== undefined && global.indexedDB !== fake.indexedDB) {
      throw new Error(
        "another IndexedDB is installed in this process; the Matrix crypto store needs its own",
      );
    }
    for (const [name, value] of Object.entries(fake)) if (name.startsWith("IDB")) global[name] = value;
    global.indexedDB = fake.indexedDB;
    observeWrites(fake);
    installed = fake;
  }
  return { factory: installed.indexedDB, keyRange: installed.IDBKeyRange };
}

/** Registers an observer of writes; returns the function that removes it. */
export function addWriteObserver(observer: WriteObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

function isKeyRange(fake: FakeIndexedDbModule, value: unknown): boolean {
  return value instanceof fake.IDBKeyRange;
}

/**
 * Wraps the object-store and database methods that write, so every change is seen with its key.
 * A put without an explicit key learns the key from the request's result.
 */
function observeWrites(fake: FakeIndexedDbModule): void {
  const store = fake.IDBObjectStore.prototype;
  const origin = (objectStore: IdbObjectStore) => ({
    database: objectStore.transaction.db.name,
    store: objectStore.name,
  });
  for (const method of ["put", "add"] as const) {
    const original = store[method];
    store[method] = function (this: IdbObjectStore, value: unknown, key?: IdbKey) {
      const request = original.call(this, value, key);
      const { database, store: name } = origin(this);
      request.addEventListener("success", () => {
        for (const observer of observers) observer.wrote(database, name, request.result);
      });
      return request;
    };
  }
  const originalDelete = store.delete;
  store.delete = function (this: IdbObjectStore, query: unknown) {
    const { database, store: name } = origin(this);
    for (const observer of observers) {
      if (isKeyRange(fake, query)) observer.storeChanged(database, name);
      else observer.wrote(database, name, query as IdbKey);
    }
    return originalDelete.call(this, query);
  };
  const originalClear = store.clear;
  store.clear = function (this: IdbObjectStore) {
    const { database, store: name } = origin(this);
    for (const observer of observers) observer.storeChanged(database, name);
    return originalClear.call(this);
  };
  const originalCreateIndex = store.createIndex;
  store.createIndex = function (this: IdbObjectStore, ...args: Parameters<IdbObjectStore["createIndex"]>) {
    for (const observer of observers) observer.schemaChanged(origin(this).database);
    return originalCreateIndex.apply(this, args);
  };
  const database = fake.IDBDatabase.prototype;
  const originalCreateStore = database.createObjectStore;
  database.createObjectStore = function (
    this: IdbDatabase,
    ...args: Parameters<IdbDatabase["createObjectStore"]>
  ) {
    for (const observer of observers) observer.schemaChanged(this.name);
    return originalCreateStore.apply(this, args);
  };
  const originalDeleteStore = database.deleteObjectStore;
  database.deleteObjectStore = function (this: IdbDatabase, name: string) {
    for (const observer of observers) observer.schemaChanged(this.name);
    return originalDeleteStore.call(this, name);
  };
}

/** An IndexedDB request as a promise. */
export function requestResult<T>(request: IdbRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Resolves when a transaction commits; rejects when it aborts. */
export function transactionDone(transaction: IdbTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error("IndexedDB transaction aborted"));
  });
}
