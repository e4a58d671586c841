// The window's few browser-side behaviours: following the stream only while the reader
// is at the bottom, copy buttons, citation clicks, shortcuts, menu keys, and the drop zone.
(() => {
  const docent = (window.docent = window.docent || {});
  docent.atBottom = true;
  const BOTTOM_SLACK = 80;

  const scroller = () => document.scrollingElement || document.documentElement;
  const measure = () => {
    const el = scroller();
    docent.atBottom = el.scrollHeight - (el.scrollTop + window.innerHeight) <= BOTTOM_SLACK;
    document.body.classList.toggle("docent-scrolled-up", !docent.atBottom);
  };
  window.addEventListener("scroll", measure, { passive: true });
  window.addEventListener("resize", measure, { passive: true });

  // Called by the server as text streams in: follow only a reader who is at the bottom.
  // A scroll event comes a frame after the scroll itself, so a follow() arriving in
  // between would pull back a reader who just scrolled up: above where we last followed
  // to means they did.
  let followedTo = null;
  docent.follow = () => {
    const el = scroller();
    if (followedTo !== null && el.scrollTop < followedTo - BOTTOM_SLACK) docent.atBottom = false;
    if (!docent.atBottom) return;
    window.scrollTo(0, el.scrollHeight);
    followedTo = el.scrollTop;
  };
  docent.toBottom = () => {
    docent.atBottom = true;
    followedTo = null;
    window.scrollTo({ top: scroller().scrollHeight, behavior: "smooth" });
  };

  // When what is shown gets shorter (a new chat, another session) no scroll event comes,
  // and "Latest" stayed with nothing below it. A change of size only ever clears it:
  // growing text is follow()ed, or not, as above.
  new ResizeObserver(() => {
    const el = scroller();
    if (el.scrollHeight - (el.scrollTop + window.innerHeight) > BOTTOM_SLACK) return;
    docent.atBottom = true;
    if (el.scrollHeight <= window.innerHeight) followedTo = null; // nothing to scroll
    document.body.classList.remove("docent-scrolled-up");
  }).observe(document.body);

  const copy = async (text, button) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      const area = document.createElement("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    if (button) {
      const before = button.textContent;
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = before), 1200);
    }
  };
  docent.copy = copy;

  document.addEventListener("click", (event) => {
    const button = event.target.closest(".docent-copy-code");
    if (button) {
      const code = button.closest(".docent-code").querySelector("pre");
      copy(code.innerText, button);
      return;
    }
    const cite = event.target.closest(".docent-cite");
    if (cite) {
      event.preventDefault();
      const turn = cite.closest("[data-turn]");
      // The sentence the mark is in: its own span of the source is the one to highlight.
      const claim = cite.closest(".docent-claim");
      emitEvent("docent_cite", {
        turn: turn ? turn.dataset.turn : "",
        n: Number(cite.dataset.n),
        s: claim ? Number(claim.dataset.s) : null,
      });
      return;
    }
    // A checked sentence opens the passage that supports it (a selection is left alone).
    const claim = event.target.closest(".docent-claim");
    if (claim && !String(window.getSelection() || "")) {
      const turn = claim.closest("[data-turn]");
      emitEvent("docent_claim", { turn: turn ? turn.dataset.turn : "", s: Number(claim.dataset.s) });
    }
  });

  // The shortcuts Help lists (ui/frame/shortcuts.py sets docent.shortcuts). Esc belongs to an
  // open dialog or menu first, and to the @ picker (which prevents its default).
  docent.focusInput = () => document.querySelector(".docent-composer textarea")?.focus();
  docent.focusSearch = () => document.querySelector(".docent-session-search input")?.focus();
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    const key = (event.key || "").toLowerCase();
    const mod = event.ctrlKey || event.metaKey;
    const shortcut = (docent.shortcuts || []).find(
      (s) => s.key === key && s.mod === mod && s.shift === event.shiftKey && !event.altKey,
    );
    if (!shortcut) return;
    if (key === "escape" && document.querySelector(".q-dialog, .q-menu")) return;
    event.preventDefault();
    if (shortcut.action === "focus-input") docent.focusInput();
    else emitEvent("docent_shortcut", shortcut.action);
  });

  // Menus work with the arrow keys, as menus do on the desktop: one opened from the
  // keyboard focuses its first item, Up and Down move (round the ends), Enter picks, Esc
  // closes (Quasar's). Before, Up and Down did nothing and focus stayed on the page.
  let byKeyboard = false;
  document.addEventListener("keydown", () => (byKeyboard = true), true);
  document.addEventListener("pointerdown", () => (byKeyboard = false), true);
  const openMenu = () => Array.from(document.querySelectorAll(".q-menu")).pop();
  const menuItems = (menu) => Array.from(menu.querySelectorAll(".q-item[tabindex]:not(.disabled)"));
  const focused = new WeakSet(); // menus given focus once: never pulled back after that
  docent.focusMenu = () => {
    const menu = openMenu();
    // Quasar shows a menu (visibility) only once it is placed; focus waits for that.
    if (!menu || focused.has(menu) || !menuItems(menu).length) return;
    if (getComputedStyle(menu).visibility !== "visible") return;
    focused.add(menu);
    if (byKeyboard && !menu.contains(document.activeElement)) menuItems(menu)[0].focus();
  };
  document.addEventListener("keydown", (event) => {
    if (!["ArrowDown", "ArrowUp", "Home", "End"].includes(event.key)) return;
    const inMenu = event.target.closest && event.target.closest(".q-menu");
    const typing = event.target.matches && event.target.matches("input, textarea");
    const menu = inMenu || (!typing && openMenu());
    if (!menu) return;
    const items = menuItems(menu);
    if (!items.length) return;
    event.preventDefault();
    const at = items.indexOf(event.target.closest(".q-item"));
    let next = 0;
    if (event.key === "End") next = items.length - 1;
    else if (event.key === "ArrowDown") next = at < 0 ? 0 : (at + 1) % items.length;
    else if (event.key === "ArrowUp") next = at < 0 ? items.length - 1 : (at - 1 + items.length) % items.length;
    items[next].focus();
  });

  // Dialogs are named by their title (the first heading or large label in them), so a
  // screen reader says which dialog opened; a menu that opened takes focus as above.
  let dialogs = 0;
  new MutationObserver(() => {
    docent.focusMenu();
    for (const dialog of document.querySelectorAll("[role=dialog]:not([aria-label]):not([aria-labelledby])")) {
      const title = dialog.querySelector("h1, h2, h3, .text-lg, .docent-dialog-title");
      if (!title) continue;
      title.id = title.id || `docent-dialog-title-${++dialogs}`;
      dialog.setAttribute("aria-labelledby", title.id);
    }
  }).observe(document.body, { childList: true, subtree: true, attributeFilter: ["class"] });

  // The drop zone: files and folders dropped anywhere go to the hidden uploader.
  let depth = 0;
  const overlay = () => document.querySelector(".docent-drop-overlay");
  const hasFiles = (event) => Array.from(event.dataTransfer?.types || []).includes("Files");
  document.addEventListener("dragenter", (event) => {
    if (!hasFiles(event)) return;
    depth += 1;
    overlay()?.classList.add("docent-drop-active");
  });
  document.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay()?.classList.remove("docent-drop-active");
  });
  document.addEventListener("dragover", (event) => {
    if (hasFiles(event)) event.preventDefault();
  });

  const readEntries = (reader) =>
    new Promise((resolve) => reader.readEntries(resolve, () => resolve([])));
  const walk = async (entry, folder, out) => {
    if (entry.isFile) {
      const file = await new Promise((resolve) => entry.file(resolve, () => resolve(null)));
      if (file) out.push({ file, folder });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      const inner = folder ? `${folder}/${entry.name}` : entry.name;
      for (let batch = await readEntries(reader); batch.length; batch = await readEntries(reader)) {
        for (const child of batch) await walk(child, inner, out);
      }
    }
  };

  // PDFs: drawn by PDF.js (ui/static/pdf_view.mjs, loaded the first time a PDF opens) at
  // the cited page, with the passage marked in the page's text.
  docent.openPdf = async (id, url, page, passage, viewer, placed) => {
    const root = getHtmlElement(id);
    if (!root) return;
    try {
      await (await import(viewer)).show(root, url, page, passage, placed || []);
    } catch (error) {
      const note = document.createElement("p");
      note.className = "docent-pdf-note";
      note.textContent = `This PDF can't be shown here: ${error.message || error}`;
      root.replaceChildren(note);
    }
  };

  docent.markPicture = async (id, module, placed, passage) => {
    const root = getHtmlElement(id);
    if (root) await (await import(module)).markPicture(root, placed, passage);
  };

  // A login that ended (Lock in another tab, long idle, a restart) closes the socket and
  // refuses it back. While Docent answers, reload: the page that asks for a login link
  // shows instead of a "connection lost" spinner that never ends.
  const lockedOut = async () => {
    try {
      if ((await fetch("/api/health", { cache: "no-store" })).ok) location.reload();
    } catch (e) {
      // Docent itself is down: NiceGUI's own notice says the connection is lost.
    }
  };
  const watchSocket = () => {
    if (!window.socket) return setTimeout(watchSocket, 200);
    window.socket.io.on("reconnect_error", lockedOut);
  };
  watchSocket();

  docent.upload = (picked) => {
    const uploader = document.querySelector(".docent-uploader");
    if (!uploader || !picked.length) return;
    emitEvent("docent_upload_folders", picked.map((p) => ({ name: p.file.name, size: p.file.size, folder: p.folder })));
    getElement(uploader).$refs.qRef.addFiles(picked.map((p) => p.file));
  };

  document.addEventListener("drop", async (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    overlay()?.classList.remove("docent-drop-active");
    const entries = Array.from(event.dataTransfer.items || [])
      .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null))
      .filter(Boolean);
    const picked = [];
    if (entries.length) {
      for (const entry of entries) await walk(entry, "", picked);
    } else {
      for (const file of event.dataTransfer.files) picked.push({ file, folder: "" });
    }
    docent.upload(picked);
  });
})();
