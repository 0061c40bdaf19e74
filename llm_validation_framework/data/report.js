// lvf HTML report: status/id filters and expand/collapse all. Inlined into every report;
// it only reads the data-status / data-text attributes the report wrote (never evaluates page text).
(function () {
  var status = "ALL";
  var query = document.getElementById("q");

  function apply() {
    var text = query.value.toLowerCase();
    document.querySelectorAll("details.case").forEach(function (d) {
      var shown = (status === "ALL" || d.dataset.status === status) && (!text || d.dataset.text.indexOf(text) >= 0);
      d.classList.toggle("hidden", !shown);
    });
  }

  document.querySelectorAll(".filters button[data-f]").forEach(function (button) {
    button.addEventListener("click", function () {
      status = button.dataset.f;
      document.querySelectorAll(".filters button[data-f]").forEach(function (other) {
        other.classList.toggle("on", other === button);
      });
      apply();
    });
  });
  query.addEventListener("input", apply);

  function openAll(open) {
    document.querySelectorAll("details.case:not(.hidden)").forEach(function (d) { d.open = open; });
  }
  document.getElementById("open").addEventListener("click", function () { openAll(true); });
  document.getElementById("close").addEventListener("click", function () { openAll(false); });
})();
