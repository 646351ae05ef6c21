// A reference file, not a tool: the binding below is commented out, so discovery skips the file.
//
// export const shopTs_example = trailblaze.tool<ExampleArgs>({ supportedPlatforms: ["web"] }, handler);
export {};
