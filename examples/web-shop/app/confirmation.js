// Confirmation page: the last order placed in this browser session.
"use strict";

(function () {
  Shop.mountHeader("confirmation");

  var el = Shop.el;
  var order = Shop.lastOrder();
  if (!order || !order.number) {
    document.getElementById("no-order").hidden = false;
    return;
  }
  document.getElementById("order-number").textContent = "Order #" + order.number;
  document.getElementById("shipping-to").textContent =
    "We will ship your order to " + order.fullName + ", " + order.address + ", " + order.postcode + " " +
    order.city + ", " + order.country + ".";
  var lines = document.getElementById("order-lines");
  order.lines.forEach(function (line) {
    lines.appendChild(
      el("li", {}, [
        el("span", { text: line.qty + " × " + line.name }),
        el("span", { text: Shop.formatMoney(line.lineCents) }),
      ])
    );
  });
  document.getElementById("order-total").textContent = "Total: " + Shop.formatMoney(order.totalCents);
  document.getElementById("confirmation").hidden = false;
})();
