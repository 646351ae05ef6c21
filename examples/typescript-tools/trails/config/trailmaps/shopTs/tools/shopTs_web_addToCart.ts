import { trailblaze } from "@trailblaze/scripting";

import { positiveInteger } from "./shopTs_shared";

export interface AddToCartArgs {
  /** Product name as listed, e.g. Trail Mug. */
  name: string;
  /** How many to add (1-99); 1 when left out. */
  quantity?: number;
}

/**
 * Add a quantity of a product to the cart from its product page, and remember the last product added.
 */
export const shopTs_web_addToCart = trailblaze.tool<AddToCartArgs>(
  { supportedPlatforms: ["web"], supportedDrivers: ["playwright-native"] },
  async (args, ctx) => {
    const quantity = positiveInteger(args.quantity, 1);
    await ctx.tools.shopTs_web_openProduct({ name: args.name });
    await ctx.tools.web_type({ ref: 'spinbutton "Quantity"', text: String(quantity) });
    await ctx.tools.web_click({ ref: 'button "Add to cart"' });
    await ctx.tools.web_verifyTextVisible({ text: "Added to cart" });
    ctx.memory.set("lastAdded", args.name);
    return `Added ${quantity} x ${args.name}.`;
  },
);
