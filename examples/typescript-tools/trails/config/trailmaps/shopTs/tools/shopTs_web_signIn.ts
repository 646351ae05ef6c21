import { trailblaze } from "@trailblaze/scripting";

import { PRODUCTS_PAGE } from "./shopTs_shared";

export interface SignInArgs {
  /** Account email (any address with an @). */
  email: string;
  /** Account password. */
  password: string;
}

/**
 * Sign in to the shop from the sign-in page and wait for the product list.
 */
export const shopTs_web_signIn = trailblaze.tool<SignInArgs>(
  { supportedPlatforms: ["web"] },
  async (args, ctx) => {
    await ctx.tools.web_navigate({ url: "/" });
    await ctx.tools.web_type({ ref: 'textbox "Email"', text: args.email });
    await ctx.tools.web_type({ ref: 'textbox "Password"', text: args.password });
    await ctx.tools.web_click({ ref: 'button "Sign in"' });
    await ctx.tools.web_verifyElementVisible({ ref: `link "View Compass"` });
    return `Signed in as ${args.email}; the product list (${PRODUCTS_PAGE}) is open.`;
  },
);
