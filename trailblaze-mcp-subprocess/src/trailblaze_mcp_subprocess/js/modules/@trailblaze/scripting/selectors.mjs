// `selectors.<driver>(match)`: the same `TrailblazeNodeSelector` as the literal `{ <driver>: match }`
// (upstream's generated `selectors` namespace), so an author gets one builder per driver vocabulary.
// The driver names are upstream's; Trailblaze's drivers resolve them as recorded `nodeSelector`s do.
const DRIVER_KEYS = ["androidAccessibility", "androidMaestro", "web", "compose", "iosMaestro", "iosAxe"];

export const selectors = Object.freeze(Object.fromEntries(
  DRIVER_KEYS.map((key) => [key, (args) => ({ [key]: args })]),
));
