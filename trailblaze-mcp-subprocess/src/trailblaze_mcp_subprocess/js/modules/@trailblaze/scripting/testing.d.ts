// Type declarations of `@trailblaze/scripting/testing` (testing.mjs): helpers for unit-testing a tool
// without Trailblaze, with upstream's names (`sdks/typescript/src/testing.ts` at a022ca69).
import type {
  MatchDescriptor,
  TrailblazeContext,
  TrailblazeDevice,
  TrailblazeTarget,
  TrailblazeToolMethod,
} from "./index";

/** One call a mock client received. */
export interface MockCall {
  tool: string;
  args: unknown;
}

/** What a stubbed tool answers: its structured content when given, else its text; or it fails. */
export interface MockStubResponse {
  textContent?: string;
  structuredContent?: unknown;
  errorMessage?: string;
}

export interface MockTrailblazeClient {
  tools: { [name: string]: TrailblazeToolMethod };
  readonly calls: MockCall[];
  stub(toolName: string, response: MockStubResponse): void;
  reset(): void;
}

/** A client that records every call and answers from per-tool stubs (unstubbed: ""). */
export declare function createMockClient(): MockTrailblazeClient;

export interface QueuedFindMatchesClient {
  tools: { [name: string]: TrailblazeToolMethod };
  readonly calls: MockCall[];
  /** Each `findMatches` call takes the next queued answer, in order. */
  queueFindMatches(responses: MatchDescriptor[][]): void;
  queueWaitUntilNotVisible(responses: unknown[]): void;
}

export declare function createQueuedFindMatchesClient(): QueuedFindMatchesClient;

export interface CreateMockContextOptions {
  platform: TrailblazeDevice["platform"];
  baseUrl?: string;
  runtime?: "ondevice";
  sessionId?: string;
  invocationId?: string;
  device?: Partial<Omit<TrailblazeDevice, "platform">>;
  target?: TrailblazeTarget;
  memory?: Record<string, string>;
}

/** A context as Trailblaze would pass it (1080×2400 device, silent logger, the given memory). */
export declare function createMockContext(opts: CreateMockContextOptions): TrailblazeContext;
