// `z`, re-exported as upstream's SDK does (`export { z } from "zod"`). Trailblaze installs nothing
// while running, so zod is whatever the tool's environment resolves (NODE_PATH, a node_modules next to
// the tool or above the working directory); without one, `z` is a stand-in that fails on first use
// naming the package, so a module that only imports it still loads.
import { createRequire } from "node:module";
import * as path from "node:path";

function load() {
  const bases = [import.meta.url, path.join(process.cwd(), "noop.js")];
  for (const base of bases) {
    try {
      const zod = createRequire(base)("zod");
      return zod.z ?? zod;
    } catch {
      // try the next place
    }
  }
  return null;
}

function missing() {
  const fail = () => {
    throw new Error("@trailblaze/scripting: `z` needs the 'zod' package, which is not installed where this " +
      "tool can resolve it (Trailblaze never installs packages while running: npm install zod next to the tool)");
  };
  return new Proxy(fail, { get: (_t, prop) => (prop === "then" ? undefined : fail()), apply: fail });
}

export const z = load() ?? missing();
