// "Copy" buttons on a paper page: the permanent link (data-copy-link = id of the link whose
// resolved href is copied: absolute from base_url, else this page's own address) and the
// BibTeX entry (data-copy-from = id of the element whose text is copied).
// Without JavaScript the buttons stay hidden; the link and the entry can still be selected.
(function () {
  "use strict";

  var status;

  function announce(message) {
    if (!status) {
      status = document.createElement("span");
      status.className = "visually-hidden";
      status.setAttribute("role", "status");
      status.setAttribute("aria-live", "polite");
      document.body.appendChild(status);
    }
    status.textContent = message;
  }

  function textFor(button) {
    var linkId = button.getAttribute("data-copy-link");
    if (linkId) {
      var link = document.getElementById(linkId);
      return link ? link.href : location.href.split("#")[0];
    }
    var source = document.getElementById(button.getAttribute("data-copy-from"));
    return source ? source.textContent : "";
  }

  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        if (!legacyCopy(text)) throw new Error("copy refused");
      });
    }
    return legacyCopy(text) ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function selectSource(button) {
    var id = button.getAttribute("data-copy-link") || button.getAttribute("data-copy-from");
    var source = document.getElementById(id);
    if (!source || !window.getSelection) return;
    var range = document.createRange();
    range.selectNodeContents(source);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function setUp(button) {
    var label = button.textContent;
    var timer;
    button.hidden = false;
    button.addEventListener("click", function () {
      copy(textFor(button)).then(function () {
        button.textContent = "Copied";
        announce("Copied to the clipboard");
      }, function () {
        selectSource(button);
        button.textContent = "Press Ctrl+C";
        announce("Could not copy; the text is selected, press Ctrl+C to copy it");
      });
      clearTimeout(timer);
      timer = setTimeout(function () { button.textContent = label; }, 2000);
    });
  }

  var buttons = document.querySelectorAll("[data-copy-link], [data-copy-from]");
  for (var i = 0; i < buttons.length; i++) setUp(buttons[i]);
})();
