// Cart page: one row per product with its quantity and line total, "Remove" per row, the total and
// "Checkout" (disabled while the cart is empty).
"use strict";

(function () {
  Shop.mountHeader("cart");

  var el = Shop.el;
  var rows = document.getElementById("cart-rows");
  var empty = document.getElementById("cart-empty");
  var contents = document.getElementById("cart-contents");
  var total = document.getElementById("cart-total");
  var status = document.getElementById("cart-status");
  var checkout = document.getElementById("checkout");

  function row(line) {
    var remove = el("button", { type: "button", className: "button button-link", "data-testid": "remove-" + line.id }, [
      "Remove",
      el("span", { className: "visually-hidden", text: " " + line.name }),
    ]);
    remove.addEventListener("click", function () {
      Shop.removeFromCart(line.id);
      render();
      status.textContent = "Removed " + line.name + " from your cart";
      heading.focus(); // the clicked button is gone; keep keyboard users on the page
    });
    return el("tr", { "data-testid": "cart-row-" + line.id }, [
      el("td", {}, [el("a", { href: "/product.html?id=" + encodeURIComponent(line.id), text: line.name })]),
      el("td", { className: "num", "data-testid": "cart-qty", text: String(line.qty) }),
      el("td", { className: "num", "data-testid": "cart-line-total", text: Shop.formatMoney(line.lineCents) }),
      el("td", { className: "num" }, [remove]),
    ]);
  }

  function render() {
    var cart = Shop.cartLines();
    var isEmpty = cart.lines.length === 0;
    rows.replaceChildren.apply(rows, cart.lines.map(row));
    total.textContent = "Total: " + Shop.formatMoney(cart.totalCents);
    empty.hidden = !isEmpty;
    contents.hidden = isEmpty;
    checkout.disabled = isEmpty;
  }

  var heading = document.querySelector("main h1");
  heading.setAttribute("tabindex", "-1");
  checkout.addEventListener("click", function () {
    if (!checkout.disabled) window.location.assign("/checkout.html");
  });
  render();
})();
