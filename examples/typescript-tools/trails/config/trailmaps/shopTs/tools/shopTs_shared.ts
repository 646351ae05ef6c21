// A helper module: no typed export, so discovery skips it; the tools import it.
export const PRODUCTS_PAGE = "/products.html";

/** `value` when it is a positive integer, else `fallback`. */
export function positiveInteger(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : fallback;
}
