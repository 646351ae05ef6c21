// Node's ESM resolve hook (registered by serve_module.mjs): `@trailblaze/scripting` is ours (./modules).
const ENTRIES = {
  "@trailblaze/scripting": new URL("./modules/@trailblaze/scripting/index.mjs", import.meta.url).href,
  "@trailblaze/scripting/testing": new URL("./modules/@trailblaze/scripting/testing.mjs", import.meta.url).href,
};

export async function resolve(specifier, context, nextResolve) {
  const url = ENTRIES[specifier];
  if (url) return { url, shortCircuit: true };
  return nextResolve(specifier, context);
}
