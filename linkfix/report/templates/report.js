"use strict";
(function () {
  var body = document.body;
  var groups = Array.prototype.slice.call(document.querySelectorAll("article.group"));
  var statusBoxes = Array.prototype.slice.call(document.querySelectorAll("#filter-status input"));
  var fileSelect = document.getElementById("filter-file");
  var hostSelect = document.getElementById("filter-host");  // absent when no link leaves the site
  var shown = document.getElementById("shown-count");
  var preview = document.getElementById("decisions-preview");
  var decisionCount = document.getElementById("decision-count");
  if (!groups.length) { return; }

  // The files each target is linked from, read once (a target may have thousands of places).
  var filesOf = new Map();
  groups.forEach(function (group) {
    var files = new Set();
    group.querySelectorAll("li.place").forEach(function (place) { files.add(place.dataset.file); });
    filesOf.set(group, files);
  });

  function applyFilters() {
    var statuses = {};
    statusBoxes.forEach(function (box) { statuses[box.value] = box.checked; });
    var file = fileSelect.value, host = hostSelect ? hostSelect.value : "", count = 0;
    groups.forEach(function (group) {
      var visible = statuses[group.dataset.status] !== false &&
        (!file || filesOf.get(group).has(file)) && (!host || group.dataset.host === host);
      group.hidden = !visible;
      if (visible) { count += 1; }
    });
    shown.textContent = count + " of " + groups.length + " targets shown";
  }

  // What `linkfix fix --apply` reads: one entry per place of each decided candidate, with the
  // replacement spelled for that place's page.
  function decisions() {
    var entries = [];
    groups.forEach(function (group) {
      group.querySelectorAll("li.candidate").forEach(function (candidate) {
        var verdict = candidate.dataset.decision;
        if (verdict !== "accept" && verdict !== "reject") { return; }
        var index = Number(candidate.dataset.index);
        group.querySelectorAll("li.place").forEach(function (place) {
          var replacement = place.dataset.replacements ? JSON.parse(place.dataset.replacements)[index] : "";
          if (!replacement) { return; }  // this place has no such candidate
          entries.push({
            // A file name that is not UTF-8 is shown escaped; its exact name is a JSON string.
            file: place.dataset.fileJson ? JSON.parse(place.dataset.fileJson) : place.dataset.file,
            line: Number(place.dataset.line),
            column: Number(place.dataset.column),
            start: Number(place.dataset.start),
            end: Number(place.dataset.end),
            url: place.dataset.url,
            kind: place.dataset.kind,
            tag: place.dataset.tag,
            replacement: replacement,
            decision: verdict
          });
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

  function setDecision(candidate, verdict) {
    candidate.dataset.decision = verdict;
    candidate.querySelector("button.accept").setAttribute("aria-pressed", String(verdict === "accept"));
    candidate.querySelector("button.reject").setAttribute("aria-pressed", String(verdict === "reject"));
  }

  document.getElementById("links").addEventListener("click", function (event) {
    var button = event.target.closest("button.accept, button.reject");
    if (!button) { return; }
    var candidate = button.closest("li.candidate");
    var verdict = button.classList.contains("accept") ? "accept" : "reject";
    if (candidate.dataset.decision === verdict) {
      setDecision(candidate, "");
    } else {
      if (verdict === "accept") {
        // One link gets one replacement: accepting a candidate withdraws the others.
        candidate.closest("article.group").querySelectorAll("li.candidate").forEach(function (other) {
          if (other !== candidate && other.dataset.decision === "accept") { setDecision(other, ""); }
        });
      }
      setDecision(candidate, verdict);
    }
    refresh();
  });

  // The summary's files: show only the targets linked from that file.
  document.getElementById("summary").addEventListener("click", function (event) {
    var button = event.target.closest("button.show-file");
    if (!button) { return; }
    fileSelect.value = button.dataset.file;
    applyFilters();
    document.getElementById("filters").scrollIntoView();
  });

  document.getElementById("clear").addEventListener("click", function () {
    document.querySelectorAll("li.candidate").forEach(function (candidate) {
      if (candidate.querySelector("button.accept")) { setDecision(candidate, ""); }
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
  if (hostSelect) { hostSelect.addEventListener("change", applyFilters); }
  applyFilters();
  refresh();
})();
