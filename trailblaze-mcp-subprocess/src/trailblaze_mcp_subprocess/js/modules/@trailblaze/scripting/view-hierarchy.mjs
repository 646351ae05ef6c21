// `captureViewHierarchy(client, selectors)`: one `findMatches` per selector (in parallel), answered
// afterwards by local lookups — `visible`, `find`, `findAll` — as upstream's `view-hierarchy.ts`.
// Only the selectors named at capture can be asked (a snapshot of a few probes, not of the screen),
// and the snapshot remembers them so a verification after an action can re-capture the same set.
const SELECTORS = Symbol("trailblaze.viewHierarchy.selectors");

const keyOf = (selector) => JSON.stringify(selector);

function asMatches(value, selector) {
  if (Array.isArray(value)) return value;
  throw new Error(`captureViewHierarchy: findMatches answered ${JSON.stringify(value)} for ` +
    `${keyOf(selector)}, not a list of matches (does this driver offer findMatches?)`);
}

export async function captureViewHierarchy(client, selectors) {
  const owned = [...selectors];
  const answers = await Promise.all(owned.map(async (selector) =>
    [keyOf(selector), asMatches(await client.tools.findMatches({ selector }), selector)]));
  const resolved = new Map(answers);
  const matchesFor = (selector) => {
    const matches = resolved.get(keyOf(selector));
    if (matches === undefined) {
      throw new Error(`ViewHierarchy: selector ${keyOf(selector)} was not pre-resolved. ` +
        "Add it to the selectors list passed to captureViewHierarchy(client, [...]).");
    }
    return matches;
  };
  return {
    visible: (selector) => matchesFor(selector).length > 0,
    find: (selector) => matchesFor(selector)[0] ?? null,
    findAll: (selector) => matchesFor(selector).slice(),
    [SELECTORS]: owned,
  };
}

export async function reCaptureViewHierarchy(client, base) {
  const selectors = base?.[SELECTORS];
  if (!selectors) {
    throw new Error("reCaptureViewHierarchy: cannot refresh this snapshot — it wasn't built via " +
      "captureViewHierarchy(client, [...selectors]), so which selectors to ask again is unknown.");
  }
  return captureViewHierarchy(client, selectors);
}
