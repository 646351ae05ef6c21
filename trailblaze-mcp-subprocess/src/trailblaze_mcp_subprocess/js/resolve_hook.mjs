// Node's ESM resolve hook (registered by serve_module.mjs): `@trailblaze/scripting` is ours (./modules).
const SCRIPTING = new URL("./modules/@trailblaze/scripting/index.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "@trailblaze/scripting") return { url: SCRIPTING, shortCircuit: true };
  return nextResolve(specifier, context);
}
