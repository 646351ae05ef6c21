// Type declarations of Trailblaze for Python's `@trailblaze/scripting` (index.mjs), so an editor and
// `tsc --noEmit` check a workspace's typed tools. The names and shapes are upstream's SDK surface
// (`sdks/typescript/src/index.ts` at a022ca69) as this package implements it; written by hand next to
// the JavaScript they describe. How a workspace points TypeScript here: docs/typescript-tools.md.

// ---- Selectors (the `nodeSelector` of recordings; trailblaze/selectors.py is the model) ------------

export interface DriverNodeMatchAndroidAccessibility {
  classNameRegex?: string | null;
  resourceIdRegex?: string | null;
  uniqueId?: string | null;
  composeTestTagRegex?: string | null;
  textRegex?: string | null;
  contentDescriptionRegex?: string | null;
  hintTextRegex?: string | null;
  labeledByTextRegex?: string | null;
  stateDescriptionRegex?: string | null;
  paneTitleRegex?: string | null;
  roleDescriptionRegex?: string | null;
  isEnabled?: boolean | null;
  isClickable?: boolean | null;
  isCheckable?: boolean | null;
  isChecked?: boolean | null;
  isSelected?: boolean | null;
  isFocused?: boolean | null;
  isEditable?: boolean | null;
  isScrollable?: boolean | null;
  isPassword?: boolean | null;
  isHeading?: boolean | null;
  isMultiLine?: boolean | null;
  inputType?: number | null;
  collectionItemRowIndex?: number | null;
  collectionItemColumnIndex?: number | null;
}

export interface DriverNodeMatchAndroidMaestro {
  textRegex?: string | null;
  resourceIdRegex?: string | null;
  accessibilityTextRegex?: string | null;
  classNameRegex?: string | null;
  hintTextRegex?: string | null;
  clickable?: boolean | null;
  enabled?: boolean | null;
  focused?: boolean | null;
  checked?: boolean | null;
  selected?: boolean | null;
}

export interface DriverNodeMatchIosMaestro {
  textRegex?: string | null;
  resourceIdRegex?: string | null;
  accessibilityTextRegex?: string | null;
  classNameRegex?: string | null;
  hintTextRegex?: string | null;
  focused?: boolean | null;
  selected?: boolean | null;
}

export interface DriverNodeMatchIosAxe {
  roleRegex?: string | null;
  subroleRegex?: string | null;
  labelRegex?: string | null;
  valueRegex?: string | null;
  uniqueId?: string | null;
  typeRegex?: string | null;
  titleRegex?: string | null;
  customAction?: string | null;
  enabled?: boolean | null;
}

export interface DriverNodeMatchWeb {
  ariaRole?: string | null;
  ariaNameRegex?: string | null;
  ariaDescriptorRegex?: string | null;
  headingLevel?: number | null;
  cssSelector?: string | null;
  dataTestId?: string | null;
  nthIndex?: number | null;
}

export interface DriverNodeMatchCompose {
  testTag?: string | null;
  role?: string | null;
  textRegex?: string | null;
  editableTextRegex?: string | null;
  contentDescriptionRegex?: string | null;
  toggleableState?: string | null;
  isEnabled?: boolean | null;
  isFocused?: boolean | null;
  isSelected?: boolean | null;
  isPassword?: boolean | null;
}

export interface TrailblazeNodeSelector {
  androidAccessibility?: DriverNodeMatchAndroidAccessibility | null;
  androidMaestro?: DriverNodeMatchAndroidMaestro | null;
  web?: DriverNodeMatchWeb | null;
  compose?: DriverNodeMatchCompose | null;
  iosMaestro?: DriverNodeMatchIosMaestro | null;
  iosAxe?: DriverNodeMatchIosAxe | null;
  below?: TrailblazeNodeSelector | null;
  above?: TrailblazeNodeSelector | null;
  leftOf?: TrailblazeNodeSelector | null;
  rightOf?: TrailblazeNodeSelector | null;
  childOf?: TrailblazeNodeSelector | null;
  containsChild?: TrailblazeNodeSelector | null;
  containsDescendants?: TrailblazeNodeSelector[] | null;
  index?: number | null;
}

/** One builder per driver vocabulary: `selectors.web(m)` is the selector `{ web: m }`. */
export declare const selectors: {
  readonly androidAccessibility: (match: DriverNodeMatchAndroidAccessibility) => TrailblazeNodeSelector;
  readonly androidMaestro: (match: DriverNodeMatchAndroidMaestro) => TrailblazeNodeSelector;
  readonly web: (match: DriverNodeMatchWeb) => TrailblazeNodeSelector;
  readonly compose: (match: DriverNodeMatchCompose) => TrailblazeNodeSelector;
  readonly iosMaestro: (match: DriverNodeMatchIosMaestro) => TrailblazeNodeSelector;
  readonly iosAxe: (match: DriverNodeMatchIosAxe) => TrailblazeNodeSelector;
};

export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** One element `findMatches` found (absent values are null). */
export interface MatchDescriptor {
  indexPath: number[];
  bounds?: Bounds | null;
  matchedText?: string | null;
  accessibilityId?: string | null;
  resourceId?: string | null;
}

// ---- Calling Trailblaze's tools -------------------------------------------------------------------

/**
 * Tools with typed arguments and results: `findMatches` here (its result is what the SDK's own helpers
 * read); a workspace may declare more (`declare module "@trailblaze/scripting" { interface
 * TrailblazeToolMap { web_click: { args: {...}; result: string } } }`). Any other tool name is still
 * callable, untyped.
 */
export interface TrailblazeToolMap {
  /** Every element the selector picks on the current screen, in screen order (any driver). */
  findMatches: {
    args: { selector: TrailblazeNodeSelector; timeoutMs?: number };
    result: MatchDescriptor[];
  };
}

export type TrailblazeToolEntry = { args: unknown; result: unknown };

/** A tool called through `ctx.tools.<name>(args)`: resolves to its structured result, else its text. */
export type TrailblazeToolMethod = (args?: any, ...rest: any[]) => Promise<any>;

export type TrailblazeToolMethods = {
  [K in keyof TrailblazeToolMap]: (
    args: TrailblazeToolMap[K] extends { args: infer A } ? A : never,
  ) => Promise<TrailblazeToolMap[K] extends { result: infer R } ? R : never>;
} & { [name: string]: TrailblazeToolMethod };

/** What a tool call answered over the callback: its text and, when the tool gave one, structured content. */
export interface TrailblazeCallToolResult {
  textContent: string;
  structuredContent: unknown;
}

export interface TrailblazeClient {
  tools: TrailblazeToolMethods;
  callTool(name: string, args?: Record<string, unknown>): Promise<TrailblazeCallToolResult>;
}

/** A client bound to one call's callback credentials (`_meta.trailblaze`). */
export declare function createClient(meta: unknown): TrailblazeClient;

// ---- A call's context -----------------------------------------------------------------------------

export interface TrailblazeMemory {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  has(key: string): boolean;
  keys(): readonly string[];
  delete(key: string): void;
  /** Stores `JSON.stringify(value)`; `undefined` deletes the key. */
  setJson(key: string, value: unknown): void;
  /** The parsed value, or undefined when the key is missing or not JSON. */
  getJson<T = unknown>(key: string): T | undefined;
  /** `{{key}}` and `${key}` replaced by their values; unknown tokens stay as written. */
  interpolate(template: string): string;
}

/** Session memory seeded with `values`; `set`/`delete` become the call's memory changes. */
export declare function createMemory(values?: Record<string, string>): TrailblazeMemory;

/** The sets and deletions made on a memory from `createMemory`, or null for any other object. */
export declare function memoryChanges(
  memory: unknown,
): { delta: Record<string, string>; deletions: string[] } | null;

export interface TrailblazeDevice {
  platform: "ios" | "android" | "web";
  widthPixels: number;
  heightPixels: number;
  driverType: string;
  driver?: string;
  instanceId?: string;
}

export interface TrailblazeTarget {
  id: string;
  displayName?: string;
  appIds: string[];
  appId?: string;
  baseUrls?: string[];
  resolvedBaseUrl?: string;
  resolveAppId(options?: { defaultAppId?: string }): string | undefined;
  resolveBaseUrl(options?: { defaultBaseUrl?: string }): string | undefined;
}

export type TrailblazeLogLevel = "debug" | "info" | "warn" | "error";

export interface TrailblazeLogger {
  debug(message: string, fields?: unknown): void;
  info(message: string, fields?: unknown): void;
  warn(message: string, fields?: unknown): void;
  error(message: string, fields?: unknown): void;
}

/** A logger whose lines go to the tool's log (stderr), never to the protocol channel. */
export declare function createLogger(toolName: string): TrailblazeLogger;

/** The context of a call made by Trailblaze, read from its MCP `_meta`. */
export interface TrailblazeContext {
  baseUrl?: string;
  runtime?: "ondevice";
  sessionId: string;
  invocationId: string;
  device: TrailblazeDevice;
  target?: TrailblazeTarget;
  memory: TrailblazeMemory;
  logger: TrailblazeLogger;
}

/** The call's context from MCP `_meta`; undefined for an envelope Trailblaze did not send. */
export declare function fromMeta(meta: unknown, logger?: TrailblazeLogger): TrailblazeContext | undefined;

/** The second argument of a typed tool's handler. */
export interface ToolContext {
  tools: TrailblazeToolMethods;
  memory: TrailblazeMemory;
  device?: TrailblazeDevice;
  target?: TrailblazeTarget;
}

// ---- Defining tools -------------------------------------------------------------------------------

/** A typed tool without arguments: `trailblaze.tool<EmptyInput>(...)`. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface EmptyInput {}

export interface TrailheadSpec {
  /** The waypoint the trailhead leaves the device at. */
  to?: string;
  dynamic?: boolean;
}

/** The literal `spec` of `trailblaze.tool<Args>(spec, handler)`, read from the source by `check`. */
export interface TrailblazeTypedToolSpec {
  description?: string;
  supportedPlatforms?: ReadonlyArray<"web" | "android" | "ios" | "desktop">;
  supportedDrivers?: readonly string[];
  requiresContext?: boolean;
  requiresHost?: boolean;
  surfaceToLlm?: boolean;
  isRecordable?: boolean;
  inputSchema?: Record<string, unknown>;
  trailhead?: TrailheadSpec;
}

/** The spec of an imperative `tool(name, spec, handler)`. */
export interface TrailblazeToolSpec {
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** An imperative tool's handler: an MCP `CallToolResult` (`{ content: [{ type: "text", text }] }`). */
export type TrailblazeToolHandler = (
  args: Record<string, unknown>,
  ctx: TrailblazeContext | undefined,
  client: TrailblazeClient,
) => Promise<unknown> | unknown;

/** What `trailblaze.tool<Args, Result>(...)` returns: the export Trailblaze's wrapper calls. */
export type TypedToolDefinition<TInput = EmptyInput, TResult = string> = ((
  args: TInput,
  ctx: TrailblazeContext | undefined,
  client: TrailblazeClient,
) => Promise<TResult>) & { spec?: TrailblazeTypedToolSpec };

export interface RunOptions {
  name?: string;
  version?: string;
}

export declare function tool<TInput = EmptyInput, TResult = string>(
  handler: (input: TInput, ctx: ToolContext) => Promise<TResult>,
): TypedToolDefinition<TInput, TResult>;
export declare function tool<TInput = EmptyInput, TResult = string>(
  spec: TrailblazeTypedToolSpec,
  handler: (input: TInput, ctx: ToolContext) => Promise<TResult>,
): TypedToolDefinition<TInput, TResult>;
export declare function tool(name: string, spec: TrailblazeToolSpec, handler: TrailblazeToolHandler): void;

/** Resolves once Trailblaze serves the module; anywhere else it rejects (no server of its own). */
export declare function run(options?: RunOptions): Promise<void>;

export declare const trailblaze: {
  readonly tool: typeof tool;
  readonly run: typeof run;
};
export default trailblaze;

// ---- Conditional actions --------------------------------------------------------------------------

/** The answers of one `captureViewHierarchy`, for the selectors it was given only. */
export interface ViewHierarchy {
  visible(selector: TrailblazeNodeSelector): boolean;
  find(selector: TrailblazeNodeSelector): MatchDescriptor | null;
  findAll(selector: TrailblazeNodeSelector): MatchDescriptor[];
}

/** Anything with `tools` (a `ToolContext`, a `TrailblazeClient`, a testing client). */
export interface ToolCaller {
  tools: TrailblazeToolMethods | { [name: string]: TrailblazeToolMethod };
}

/** One `findMatches` per selector, answered afterwards without another call. */
export declare function captureViewHierarchy(
  client: ToolCaller,
  selectors: readonly TrailblazeNodeSelector[],
): Promise<ViewHierarchy>;

export interface ConditionalAction {
  id: string;
  description: string;
  condition: (snapshot: ViewHierarchy) => boolean;
  action: () => Promise<void>;
  postcondition?: (snapshot: ViewHierarchy) => boolean;
}

export declare class ConditionalActionFailedError extends Error {
  constructor(conditionalActionId: string, message: string, cause?: unknown);
  readonly conditionalActionId: string;
  readonly cause: unknown;
}

export declare function runConditionalActions(
  client: ToolCaller,
  conditionalActions: readonly ConditionalAction[],
  presnapshot: ViewHierarchy,
): Promise<{ handled: string[] }>;

// ---- zod ------------------------------------------------------------------------------------------

/**
 * zod's `z`, from wherever the tool resolves the `zod` package (none is shipped). Typed loosely so a
 * workspace without zod still type-checks; `import { z } from "zod"` gives zod's own types.
 */
export declare const z: any;
