// The expense list: "Delete" asks with confirm(), "Rename" asks for the new name with prompt().
"use strict";

(function () {
  var expenses = [
    { name: "Taxi", amount: "$32.00" },
    { name: "Hotel", amount: "$120.00" },
    { name: "Lunch", amount: "$18.50" },
  ];
  var rows = document.getElementById("expense-rows");
  var status = document.getElementById("reports-status");

  function button(label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  function render() {
    rows.textContent = "";
    expenses.forEach(function (expense, index) {
      var row = document.createElement("tr");
      [expense.name, expense.amount].forEach(function (text) {
        var cell = document.createElement("td");
        cell.textContent = text;
        row.appendChild(cell);
      });
      var actions = document.createElement("td");
      actions.appendChild(button("Rename " + expense.name, function () {
        var name = window.prompt("New name for " + expense.name + "?", expense.name);
        if (name === null || !name.trim()) {
          status.textContent = "Kept the name " + expense.name;
          return;
        }
        status.textContent = "Renamed " + expense.name + " to " + name.trim();
        expense.name = name.trim();
        render();
      }));
      actions.appendChild(button("Delete " + expense.name, function () {
        if (!window.confirm("Delete " + expense.name + "?")) {
          status.textContent = "Kept " + expense.name;
          return;
        }
        expenses.splice(index, 1);
        status.textContent = "Deleted " + expense.name;
        render();
      }));
      row.appendChild(actions);
      rows.appendChild(row);
    });
  }

  render();
})();
