"use strict";
(function () {
  var body = document.body;
  var links = Array.prototype.slice.call(document.querySelectorAll("article.link"));
  var statusBoxes = Array.prototype.slice.call(document.querySelectorAll("#filter-status input"));
  var fileSelect = document.getElementById("filter-file");
  var hostSelect = document.getElementById("filter-host");
  var shown = document.getElementById("shown-count");
  var preview = document.getElementById("decisions-preview");
  var decisionCount = document.getElementById("decision-count");
  if (!links.length) { return; }

  function applyFilters() {
    var statuses = {};
    statusBoxes.forEach(function (box) { statuses[box.value] = box.checked; });
    var file = fileSelect.value, host = hostSelect.value, count = 0;
    links.forEach(function (link) {
      var visible = statuses[link.dataset.status] !== false &&
        (!file || link.dataset.file === file) && (!host || link.dataset.host === host);
      link.hidden = !visible;
      if (visible) { count += 1; }
    });
    shown.textContent = count + " of " + links.length + " shown";
  }

  // What `linkfix fix --apply` reads: one entry per decided candidate.
  function decisions() {
    var entries = [];
    links.forEach(function (link) {
      link.querySelectorAll("tr.candidate").forEach(function (row) {
        var verdict = row.dataset.decision;
        if (verdict !== "accept" && verdict !== "reject") { return; }
        entries.push({
          // A file name that is not UTF-8 is shown escaped; its exact name is a JSON string.
          file: link.dataset.fileJson ? JSON.parse(link.dataset.fileJson) : link.dataset.file,
          line: Number(link.dataset.line),
          column: Number(link.dataset.column),
          start: Number(link.dataset.start),
          end: Number(link.dataset.end),
          url: link.dataset.url,
          kind: link.dataset.kind,
          tag: link.dataset.tag,
          replacement: row.dataset.replacement,
          decision: verdict
        });
      });
    });
    return { schema: body.dataset.schema, version: 1, report: { started: body.dataset.started }, decisions: entries };
  }

  function refresh() {
    var data = decisions();
    var accepted = data.decisions.filter(function (d) { return d.decision === "accept"; }).length;
    decisionCount.textContent = accepted + " accepted, " + (data.decisions.length - accepted) + " rejected";
    preview.textContent = data.decisions.length ? JSON.stringify(data, null, 2) : "";
  }

  function setDecision(row, verdict) {
    row.dataset.decision = verdict;
    row.querySelector("button.accept").setAttribute("aria-pressed", String(verdict === "accept"));
    row.querySelector("button.reject").setAttribute("aria-pressed", String(verdict === "reject"));
  }

  document.getElementById("links").addEventListener("click", function (event) {
    var button = event.target.closest("button.accept, button.reject");
    if (!button) { return; }
    var row = button.closest("tr.candidate");
    var verdict = button.classList.contains("accept") ? "accept" : "reject";
    if (row.dataset.decision === verdict) {
      setDecision(row, "");
    } else {
      if (verdict === "accept") {
        // One link gets one replacement: accepting a candidate withdraws the others.
        row.closest("article.link").querySelectorAll("tr.candidate").forEach(function (other) {
          if (other !== row && other.dataset.decision === "accept") { setDecision(other, ""); }
        });
      }
      setDecision(row, verdict);
    }
    refresh();
  });

  document.getElementById("clear").addEventListener("click", function () {
    document.querySelectorAll("tr.candidate").forEach(function (row) {
      if (row.querySelector("button.accept")) { setDecision(row, ""); }
    });
    refresh();
  });

  document.getElementById("download").addEventListener("click", function () {
    var blob = new Blob([JSON.stringify(decisions(), null, 2) + "\n"], { type: "application/json" });
    var anchor = document.createElement("a");
    anchor.href = URL.createObjectURL(blob);
    anchor.download = "decisions.json";
    document.body.appendChild(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(function () { URL.revokeObjectURL(anchor.href); }, 1000);
  });

  statusBoxes.forEach(function (box) { box.addEventListener("change", applyFilters); });
  fileSelect.addEventListener("change", applyFilters);
  hostSelect.addEventListener("change", applyFilters);
  applyFilters();
  refresh();
})();
