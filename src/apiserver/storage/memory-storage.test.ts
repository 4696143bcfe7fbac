import { storageConformance } from "../../testing/index.ts";
import { MemoryStorage } from "./memory-storage.ts";

storageConformance("MemoryStorage", async () => new MemoryStorage());
