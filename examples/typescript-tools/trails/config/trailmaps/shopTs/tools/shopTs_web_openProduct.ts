import { trailblaze } from "@trailblaze/scripting";

import { PRODUCTS_PAGE } from "./shopTs_shared";

export interface OpenProductArgs {
  /** Product name as listed, e.g. Trail Mug. */
  name: string;
}

/**
 * Open a product's page from the product list and check its heading.
 */
export const shopTs_web_openProduct = trailblaze.tool<OpenProductArgs>(
  { supportedPlatforms: ["web"], requiresContext: true },
  async (args, ctx) => {
    await ctx.tools.web_navigate({ url: PRODUCTS_PAGE });
    await ctx.tools.web_click({ ref: `link "View ${args.name}"` });
    await ctx.tools.web_verifyElementVisible({ ref: `heading "${args.name}" [level=1]` });
    return `Opened ${args.name}.`;
  },
);
