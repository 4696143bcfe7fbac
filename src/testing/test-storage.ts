import { EtcdStorage, type Storage } from "../apiserver/index.ts";
import { startEtcd } from "./etcd.ts";

/**
 * The environment variable that picks the storage of test servers started without one:
 * unset or `memory` for a new `MemoryStorage` each, `etcd` for a throwaway etcd each
 * (`startEtcd`), so that a whole black-box suite runs on either backend unchanged.
 */
export const TEST_STORAGE_ENV = "KONTROLLER_TEST_STORAGE";

/** A storage for one test server, and how to dispose of it once the server is closed. */
export interface TestStorage {
  readonly storage: Storage;
  close(): Promise<void>;
}

/**
 * The storage `$KONTROLLER_TEST_STORAGE` asks for, or undefined for the server's default
 * (memory). Throws for an unknown value.
 */
export async function testStorageFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestStorage | undefined> {
  const kind = env[TEST_STORAGE_ENV] ?? "";
  if (kind === "" || kind === "memory") return undefined;
  if (kind !== "etcd") {
    throw new Error(`${TEST_STORAGE_ENV}=${kind}: expected "memory" or "etcd"`);
  }
  const etcd = await startEtcd();
  const storage = new EtcdStorage({ endpoints: [etcd.endpoint] });
  return {
    storage,
    close: async () => {
      await storage.close();
      await etcd.close();
    },
  };
}
