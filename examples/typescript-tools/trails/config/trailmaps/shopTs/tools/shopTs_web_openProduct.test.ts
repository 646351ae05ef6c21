// A co-located unit test (*.test.ts): never a tool source, even though it names a typed binding.
import { shopTs_web_openProduct } from "./shopTs_web_openProduct";

export const checked = typeof shopTs_web_openProduct === "function";
