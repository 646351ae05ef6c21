// Editor types for `@trailblaze/scripting` (*.d.ts files are never tool sources).
declare module "@trailblaze/scripting" {
  export interface ToolContext {
    tools: Record<string, (args?: Record<string, unknown>) => Promise<unknown>>;
    memory: { get(key: string): string | undefined; set(key: string, value: unknown): void };
  }
  export const trailblaze: {
    tool<Args>(spec: Record<string, unknown>, handler: (args: Args, ctx: ToolContext) => Promise<unknown>):
      (args: Args) => Promise<unknown>;
  };
}
