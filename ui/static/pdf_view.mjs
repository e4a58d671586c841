// The window's PDF viewer: PDF.js draws a page with its text layer over it, and the passage
// an answer rests on is marked in that text and scrolled into view. The text Docent stored
// for the page came from another reader (pypdf), so the passage is found by its characters
// with the spacing, case and typographic variants folded away, not by offsets.
import * as pdfjs from "./pdfjs/pdf.min.mjs";

const base = new URL("./pdfjs/", import.meta.url);
pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdf.worker.min.mjs", base).href;
const MAX_SCALE = 1.6;

const element = (tag, className, text) => {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text) made.textContent = text;
  return made;
};

function addStyle() {
  if (document.getElementById("docent-pdf-text-layer")) return;
  const link = element("link");
  link.id = "docent-pdf-text-layer";
  link.rel = "stylesheet";
  link.href = new URL("text_layer.css", base).href;
  document.head.append(link);
}

// One character as the search compares it: compatibility forms (ligatures), case, quotes
// and dashes folded; spaces dropped (each reader spaces a page's text its own way).
export const fold = (text) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[‘’‛′`]/g, "'")
    .replace(/[“”„″]/g, '"')
    .replace(/[‐‑‒–—―−]/g, "-")
    .replace(/\s+/g, "");

export function flatten(items) {
  const chars = [];
  const at = [];
  items.forEach((text, item) => {
    for (let i = 0; i < text.length; i++) {
      for (const c of fold(text[i])) {
        chars.push(c);
        at.push([item, i]);
      }
    }
  });
  return { flat: chars.join(""), at };
}

// Where the passage is in the page's folded text, and how it was found: all of it
// ("whole"), or else between its first and last words ("ends": a line the readers split
// differently), or else from its first or last words alone ("part").
export function locate(flat, needle) {
  const whole = flat.indexOf(needle);
  if (whole >= 0) return { how: "whole", range: [whole, whole + needle.length] };
  for (const size of [48, 24, 12]) {
    if (needle.length <= size) continue;
    const head = flat.indexOf(needle.slice(0, size));
    const tail = flat.indexOf(needle.slice(-size), Math.max(head, 0));
    if (head >= 0 && tail >= head && tail + size - head <= needle.length * 1.5) {
      return { how: "ends", range: [head, tail + size] };
    }
    if (head >= 0) return { how: "part", range: [head, Math.min(flat.length, head + needle.length)] };
    if (tail >= 0) return { how: "part", range: [Math.max(0, tail + size - needle.length), tail + size] };
  }
  return null;
}

// Wrap the passage's characters in each text item in a highlight, as PDF.js's own find bar
// does; returns the first highlight and how the passage was found, or null when it is not
// on the page.
function mark(divs, items, passage) {
  const needle = fold(passage.replace(/…\s*$/, ""));
  if (!needle) return null;
  const { flat, at } = flatten(items);
  const found = locate(flat, needle);
  if (!found) return null;
  const spans = new Map();
  for (let k = found.range[0]; k < found.range[1]; k++) {
    const [item, offset] = at[k];
    const span = spans.get(item) || [offset, offset];
    spans.set(item, [Math.min(span[0], offset), Math.max(span[1], offset + 1)]);
  }
  let first = null;
  for (const [item, [start, end]] of spans) {
    const div = divs[item];
    const text = items[item];
    const highlight = element("span", "highlight appended docent-pdf-mark", text.slice(start, end));
    div.replaceChildren(text.slice(0, start), highlight, text.slice(end));
    first = first || highlight;
  }
  return { first, how: found.how };
}

export async function show(root, url, page, passage) {
  addStyle();
  const bar = element("div", "docent-pdf-bar");
  const previous = element("button", "docent-pdf-button", "‹");
  const next = element("button", "docent-pdf-button", "›");
  const label = element("span", "docent-pdf-label", "Opening…");
  previous.title = "Previous page";
  next.title = "Next page";
  bar.append(previous, label, next);
  const area = element("div", "docent-pdf-area");
  // Focusable, so the page scrolls with the arrow keys too (and axe's scrollable rule).
  area.tabIndex = 0;
  area.setAttribute("aria-label", "PDF page");
  const sheet = element("div", "docent-pdf-page");
  area.append(sheet);
  root.replaceChildren(bar, area);

  // The window's single-use link serves the file once: read it whole, then hand it over.
  const response = await fetch(url, { cache: "no-store", credentials: "same-origin" });
  if (!response.ok) {
    throw new Error(
      response.status === 404
        ? "this link to it was used already. Open it again from its citation."
        : `the app answered ${response.status}.`,
    );
  }
  const data = new Uint8Array(await response.arrayBuffer());
  const doc = await pdfjs.getDocument({
    data,
    isEvalSupported: false,
    wasmUrl: new URL("wasm/", base).href,
    iccUrl: new URL("iccs/", base).href,
  }).promise;
  const cited = Math.min(Math.max(1, page), doc.numPages);
  let drawing = Promise.resolve();

  const draw = async (number) => {
    const pdfPage = await doc.getPage(number);
    const unscaled = pdfPage.getViewport({ scale: 1 });
    const room = Math.max(area.clientWidth - 32, 200);
    const scale = Math.min(MAX_SCALE, room / unscaled.width);
    const viewport = pdfPage.getViewport({ scale });
    const ratio = window.devicePixelRatio || 1;
    const canvas = element("canvas");
    canvas.width = Math.floor(viewport.width * ratio);
    canvas.height = Math.floor(viewport.height * ratio);
    canvas.style.width = `${Math.floor(viewport.width)}px`;
    canvas.style.height = `${Math.floor(viewport.height)}px`;
    const layer = element("div", "textLayer");
    sheet.style.setProperty("--scale-factor", String(scale));
    sheet.style.width = canvas.style.width;
    sheet.style.height = canvas.style.height;
    sheet.replaceChildren(canvas, layer);
    const transform = ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0];
    await pdfPage.render({ canvas, viewport, transform }).promise;
    const text = new pdfjs.TextLayer({
      textContentSource: pdfPage.streamTextContent(),
      container: layer,
      viewport,
    });
    await text.render();
    label.textContent = `Page ${number} of ${doc.numPages}`;
    previous.disabled = number <= 1;
    next.disabled = number >= doc.numPages;
    root.dataset.shown = String(number);
    if (number === cited && passage) {
      const marked = mark(text.textDivs, text.textContentItemsStr, passage);
      root.dataset.marked = marked ? marked.how : "no";
      if (marked) marked.first.scrollIntoView({ block: "center" });
      else if (!text.textContentItemsStr.some((item) => item.trim())) {
        // A scan: the page is a picture (Docent read its words by OCR), so there is no
        // text here to mark; "not found" would wrongly suggest the citation is off.
        root.dataset.marked = "scanned";
        label.textContent += " · a scanned page: the passage can't be marked on the picture";
      } else label.textContent += " · the passage could not be found in this page's text";
    } else {
      area.scrollTop = 0;
    }
  };
  const go = (number) => {
    if (number < 1 || number > doc.numPages) return;
    drawing = drawing.then(() => draw(number)).catch((error) => {
      label.textContent = `Page ${number} can't be shown: ${error.message || error}`;
    });
  };
  previous.addEventListener("click", () => go(Number(root.dataset.shown) - 1));
  next.addEventListener("click", () => go(Number(root.dataset.shown) + 1));
  root.dataset.pages = String(doc.numPages);
  go(cited);
  await drawing;
}
