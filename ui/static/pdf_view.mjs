// The window's PDF viewer: PDF.js draws a page with its text layer over it, and the passage
// an answer rests on is marked in that text and scrolled into view (marking.mjs). A
// scanned page's text layer is made from the lines OCR read.
import { addStyle, element, mark, ocrLayer } from "./marking.mjs";
import * as pdfjs from "./pdfjs/pdf.min.mjs";

const base = new URL("./pdfjs/", import.meta.url);
pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdf.worker.min.mjs", base).href;
const MAX_SCALE = 1.6;

export async function show(root, url, page, passage, placed = []) {
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
    const scanned = !text.textContentItemsStr.some((item) => item.trim());
    const read = number === cited && scanned && placed.length > 0;
    const divs = read ? ocrLayer(layer, placed, viewport.width, viewport.height) : text.textDivs;
    const items = read ? placed.map(([line]) => line) : text.textContentItemsStr;
    if (read) label.textContent += " · a scanned page: its text as OCR read it";
    if (number === cited && passage) {
      const marked = mark(divs, items, passage);
      root.dataset.marked = marked ? marked.how : "no";
      if (marked) marked.first.scrollIntoView({ block: "center" });
      else if (scanned && !read) {
        // A scan whose lines were not kept (indexed before they were): there is no text
        // here to mark; "not found" would wrongly suggest the citation is off.
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
