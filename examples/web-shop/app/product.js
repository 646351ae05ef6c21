// Product page: details, quantity, "Add to cart", and reviews that arrive late
// (after 800 ms, or ?reviewsDelay=<ms>).
"use strict";

(function () {
  Shop.mountHeader("product");

  var el = Shop.el;
  var product = Shop.findProduct(Shop.param("id"));
  if (!product) {
    document.getElementById("not-found").hidden = false;
    return;
  }

  document.title = product.name + " · Trailblaze Outfitters";
  var image = document.getElementById("product-image");
  image.src = "/" + product.image;
  image.alt = product.imageAlt || product.name;
  document.getElementById("product-name").textContent = product.name;
  document.getElementById("product-price").textContent = Shop.formatMoney(product.priceCents);
  document.getElementById("product-description").textContent = product.description;
  document.getElementById("product").hidden = false;

  var quantity = document.getElementById("quantity");
  var quantityError = document.getElementById("quantity-error");
  var status = document.getElementById("add-status");

  document.getElementById("add-form").addEventListener("submit", function (event) {
    event.preventDefault();
    status.textContent = "";
    var qty = Number(quantity.value);
    if (!Number.isInteger(qty) || qty < 1 || qty > 99) {
      quantityError.textContent = "Quantity must be between 1 and 99";
      quantity.setAttribute("aria-invalid", "true");
      quantity.setAttribute("aria-describedby", "quantity-error");
      quantity.focus();
      return;
    }
    quantityError.textContent = "";
    quantity.removeAttribute("aria-invalid");
    quantity.removeAttribute("aria-describedby");
    Shop.addToCart(product.id, qty);
    status.textContent = "Added to cart";
  });

  // ---- reviews ---------------------------------------------------------------------------------
  var section = document.getElementById("reviews");
  var loading = document.getElementById("reviews-loading");
  var list = document.getElementById("review-list");
  section.hidden = false;
  section.setAttribute("aria-busy", "true");

  var delay = parseInt(Shop.param("reviewsDelay") || "", 10);
  if (!Number.isFinite(delay) || delay < 0) delay = 800;
  delay = Math.min(delay, 60000);

  function stars(rating) {
    return "★★★★★".slice(0, rating) + "☆☆☆☆☆".slice(0, 5 - rating);
  }

  function review(r, index) {
    return el("li", { className: "review", "data-testid": "review" }, [
      el("p", { className: "review-meta" }, [
        el("strong", { className: "review-author", text: r.author }),
        " ",
        el("span", { className: "stars", "aria-hidden": "true", text: stars(r.rating) }),
        el("span", { className: "visually-hidden", text: "Rated " + r.rating + " out of 5" }),
      ]),
      el("p", { className: "review-text", text: r.text }),
    ]);
  }

  window.setTimeout(function () {
    list.replaceChildren.apply(list, product.reviews.map(review));
    loading.remove();
    list.hidden = false;
    section.removeAttribute("aria-busy");
  }, delay);
})();
