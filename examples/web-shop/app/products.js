// Products page: live search by name, sorting, one card per product.
"use strict";

(function () {
  Shop.mountHeader("products");

  var search = document.getElementById("search");
  var sort = document.getElementById("sort");
  var list = document.getElementById("product-list");
  var count = document.getElementById("result-count");
  var el = Shop.el;

  var comparators = {
    "name-asc": function (a, b) {
      return a.name.localeCompare(b.name, "en");
    },
    "price-asc": function (a, b) {
      return a.priceCents - b.priceCents;
    },
    "price-desc": function (a, b) {
      return b.priceCents - a.priceCents;
    },
  };

  function card(product) {
    var href = "/product.html?id=" + encodeURIComponent(product.id);
    return el(
      "li",
      { role: "listitem", className: "product-card", "data-testid": "product-" + product.id, "data-product-id": product.id },
      [
        el("img", { src: "/" + product.image, alt: "", width: "220", height: "160", className: "product-thumb" }),
        el("h2", { className: "product-name", "data-testid": "product-name", text: product.name }),
        el("p", { className: "price", "data-testid": "product-price", text: Shop.formatMoney(product.priceCents) }),
        el("a", { className: "button button-primary", href: href, "data-testid": "view-" + product.id }, [
          "View",
          el("span", { className: "visually-hidden", text: " " + product.name }),
        ]),
      ]
    );
  }

  function render() {
    var query = search.value.trim().toLowerCase();
    var all = Shop.products();
    var shown = all
      .filter(function (p) {
        return p.name.toLowerCase().indexOf(query) !== -1;
      })
      .sort(comparators[sort.value] || comparators["name-asc"]);
    list.replaceChildren.apply(list, shown.map(card));
    count.textContent =
      shown.length === 0 ? "No products found" : "Showing " + shown.length + " of " + all.length + " products";
  }

  search.addEventListener("input", render);
  sort.addEventListener("change", render);
  document.getElementById("product-filters").addEventListener("submit", function (event) {
    event.preventDefault(); // Enter in the search box must not reload the page
  });
  render();
})();
