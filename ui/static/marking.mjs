// Marking a passage on a page: in the text layer PDF.js draws over a PDF page, or in one
// made from the lines OCR read on a scan or a photo. The text Docent stored for a page came
// from another reader (pypdf, or OCR's reading order), so the passage is found by its
// characters with the spacing, case and typographic variants folded away, not by offsets.

const base = new URL("./pdfjs/", import.meta.url);

export const element = (tag, className, text) => {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text) made.textContent = text;
  return made;
};

export function addStyle() {
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
export function mark(divs, items, passage) {
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

// A scanned page has no text of its own: the lines OCR read (``placed``: text and corners
// as fractions of the page) are laid over the picture as a text layer of their own, each
// stretched along its box and turned with it, as PDF.js lays out its text, so a passage
// is marked where it was read, and the words can be selected and copied.
export function ocrLayer(layer, placed, width, height) {
  const boxes = placed.map(([, corners]) => {
    const [a, b, c] = corners.map(([x, y]) => [x * width, y * height]);
    // Along the text's top edge, then down its left: a slanted line's box turns with it.
    return {
      at: a,
      long: Math.hypot(b[0] - a[0], b[1] - a[1]),
      tall: Math.hypot(c[0] - b[0], c[1] - b[1]),
      angle: Math.atan2(b[1] - a[1], b[0] - a[0]),
    };
  });
  const spans = placed.map(([text], i) => {
    const span = element("span", "docent-ocr-line", text);
    const { at, tall } = boxes[i];
    span.style.left = `${at[0]}px`;
    span.style.top = `${at[1]}px`;
    span.style.fontSize = `${tall * 0.85}px`;
    span.style.lineHeight = `${tall}px`;
    return span;
  });
  layer.append(...spans);
  spans.forEach((span, i) => {
    const drawn = span.getBoundingClientRect().width;
    const { long, angle } = boxes[i];
    const stretch = drawn > 0 ? long / drawn : 1;
    span.style.transform = `rotate(${angle}rad) scaleX(${stretch})`;
  });
  return spans;
}

// A photo or a picture (``root`` holds its <img>): the lines OCR read are laid over it
// and the passage marked among them and scrolled into view.
export async function markPicture(root, placed, passage) {
  addStyle();
  const image = root.querySelector("img");
  if (!image) return;
  if (!image.complete) await new Promise((done) => image.addEventListener("load", done, { once: true }));
  const layer = element("div", "textLayer docent-picture-layer");
  root.querySelector(".docent-picture-layer")?.remove();
  root.append(layer);
  const divs = ocrLayer(layer, placed, image.clientWidth, image.clientHeight);
  const marked = passage ? mark(divs, placed.map(([line]) => line), passage) : null;
  root.dataset.marked = marked ? marked.how : "no";
  if (marked) marked.first.scrollIntoView({ block: "center" });
}
