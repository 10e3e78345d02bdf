// Topic map legend as a filter: pressing topics highlights their papers and fades the others.
// Progressive: without JavaScript the map and legend (links to the tag or topic-map pages) work as drawn.
// Faded points leave the tab order and the accessibility tree, so keyboard readers only meet the
// papers they asked for. On the overview of a large collection each topic is one link (its dots)
// plus a name label, which fades with it.
(function () {
  "use strict";

  function setUp(figure) {
    var svg = figure.querySelector(".topic-map-svg");
    var legend = figure.querySelector(".map-legend");
    if (!svg || !legend) return;
    var groups = {};
    Array.prototype.forEach.call(svg.querySelectorAll(".tm-group"), function (g) {
      groups[g.getAttribute("data-group")] = g;
    });
    var labels = svg.querySelectorAll(".tm-label");
    var chosen = {};
    var buttons = [];

    var controls = document.createElement("p");
    controls.className = "map-controls";
    var status = document.createElement("span");
    status.className = "map-status";
    status.setAttribute("role", "status");
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "button map-clear";
    clear.textContent = "Show all topics";
    clear.hidden = true;
    controls.appendChild(status);
    controls.appendChild(clear);
    legend.parentNode.insertBefore(controls, legend.nextSibling);

    function apply() {
      var any = Object.keys(chosen).length > 0;
      var shown = 0;
      Object.keys(groups).forEach(function (key) {
        var g = groups[key];
        var on = !any || chosen[key];
        g.classList.toggle("tm-faded", !on);
        // data-count, not the links: an overview group is one link for all of its papers.
        if (on) shown += parseInt(g.getAttribute("data-count"), 10) || 0;
        if (on) g.removeAttribute("aria-hidden"); else g.setAttribute("aria-hidden", "true");
        Array.prototype.forEach.call(g.querySelectorAll("a"), function (a) {
          if (on) a.removeAttribute("tabindex"); else a.setAttribute("tabindex", "-1");
        });
      });
      Array.prototype.forEach.call(labels, function (label) {
        label.classList.toggle("tm-faded", any && !chosen[label.getAttribute("data-group")]);
      });
      svg.classList.toggle("tm-filtered", any);
      buttons.forEach(function (b) {
        b.setAttribute("aria-pressed", chosen[b.getAttribute("data-group")] ? "true" : "false");
      });
      clear.hidden = !any;
      status.textContent = any ? "Highlighting " + Object.keys(chosen).length + " topic" +
        (Object.keys(chosen).length === 1 ? "" : "s") + " (" + shown + " paper" + (shown === 1 ? "" : "s") + "). " : "";
    }

    Array.prototype.forEach.call(legend.querySelectorAll("li[data-group]"), function (li) {
      var key = li.getAttribute("data-group");
      var swatch = li.querySelector(".swatch");
      var name = li.querySelector("a, span");
      if (!groups[key] || !swatch || !name) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "legend-filter";
      button.setAttribute("data-group", key);
      button.setAttribute("aria-pressed", "false");
      button.setAttribute("aria-label", "Highlight " + name.textContent + " on the map");
      button.title = "Highlight on the map";
      li.insertBefore(button, swatch);
      button.appendChild(swatch);
      button.addEventListener("click", function () {
        if (chosen[key]) delete chosen[key]; else chosen[key] = true;
        apply();
      });
      buttons.push(button);
    });
    clear.addEventListener("click", function () {
      chosen = {};
      apply();
      if (buttons[0]) buttons[0].focus();
    });
    legend.classList.add("map-legend-filter");
    var help = document.querySelector(".map-help");
    if (help) help.hidden = false;
  }

  Array.prototype.forEach.call(document.querySelectorAll(".topic-map"), setUp);
})();
