"""RapidOcrEngine: the text lines of an image, with the models the rapidocr wheel ships.

Each model is named by its file, so rapidocr never reaches for its download code; one
onnxruntime thread leaves the other core to typed files. A page's orientation is the vote
of its lines, and every line is turned that way, so one misclassified line is not flipped.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.ocr.page_reader import Line, Lines

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

MODEL_FILES = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}
"""The models rapidocr 3.10's wheel ships (pinned in pyproject.toml)."""
MAX_SIDE = 2000
"""rapidocr shrinks a bigger image to this before it detects (so render no bigger)."""
MAX_PIXELS = 2_200_000
"""Most pixels an image is read at: an A4 page at 150 dpi, about 600 MB of detection (a
2000 × 2000 page took the OCR worker to 1 GB)."""


def fitting_scale(width: float, height: float) -> float:
    """The scale (at most 1) that brings an image within MAX_SIDE and MAX_PIXELS."""
    area = max(width * height, 1.0)
    return min(1.0, MAX_SIDE / max(width, height, 1.0), (MAX_PIXELS / area) ** 0.5)


_TALL = 1.5
"""A box this many times taller than wide is a line lying on its side."""


class OcrUnavailable(Exception):
    """The OCR models are not installed; the message says how to fix it."""


def models_dir() -> Path:
    """Where the installed rapidocr keeps its models; raises OcrUnavailable if absent."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise OcrUnavailable("OCR needs the 'rapidocr' package: reinstall Docent's dependencies")
    folder = Path(next(iter(spec.submodule_search_locations))) / "models"
    missing = [name for name in MODEL_FILES.values() if not (folder / name).is_file()]
    if missing:
        raise OcrUnavailable(
            f"the OCR models {', '.join(missing)} are missing from {folder}: reinstall"
            " Docent's dependencies (rapidocr==3.10.0 ships them)"
        )
    return folder


class RapidOcrEngine:
    """Detects, orients and recognises lines of text; one instance per worker process."""

    def __init__(self, threads: int = 1) -> None:
        folder = models_dir()
        import cv2
        from rapidocr import RapidOCR

        cv2.setNumThreads(threads)
        params: dict[str, Any] = {
            "Global.log_level": "error",
            "Global.max_side_len": MAX_SIDE,
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            # One line at a time: a batch pads every line to the longest one's width,
            # which cost a quarter more time and 40% more peak memory on a page of prose.
            "Rec.rec_batch_num": 1,
        }
        for part, name in MODEL_FILES.items():
            params[f"{part}.model_path"] = str(folder / name)
        self._ocr = RapidOCR(params=params)
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)

    def lines(self, image: np.ndarray) -> Lines:
        """The lines of an RGB image (height × width × 3, uint8)."""
        import cv2
        import numpy as np
        from rapidocr.main import RapidOCRError
        from rapidocr.utils.output import RapidOCROutput

        scale = fitting_scale(image.shape[1], image.shape[0])
        if scale < 1.0:  # a caller's image bigger than OCR reads well: shrink it first
            size = (int(image.shape[1] * scale), int(image.shape[0] * scale))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        height, width = image.shape[:2]
        ocr = self._ocr
        resized, record = ocr.preprocess_img(image)
        try:
            crops, detected = ocr.detect_and_crop(resized, record)
        except RapidOCRError:  # no text found
            return Lines([], 0, width, height)
        sideways = _sideways(detected.boxes)
        if sideways:  # a line not tall enough to be turned by rapidocr is turned here
            crops = [c if c.shape[0] < c.shape[1] else np.rot90(c) for c in crops]
        _, classified = ocr.cls_and_rotate(crops)
        flipped = _flipped(crops, classified.cls_res or [])
        if flipped:
            crops = [np.rot90(c, 2) for c in crops]
        recognised = ocr.recognize_txt(crops)
        # Boxes back in the image's own coordinates; empty and unsure lines dropped.
        output = ocr.build_final_output(image, detected, classified, recognised, crops, record)
        if not isinstance(output, RapidOCROutput) or output.boxes is None:
            return Lines([], 0, width, height)  # nothing recognised with enough confidence
        found: list[Line] = []
        for box, text, score in zip(
            output.boxes, output.txts or (), output.scores or (), strict=True
        ):
            points = tuple((float(x), float(y)) for x, y in box)
            found.append(Line(points, str(text), float(score)))
        rotation = (90 if sideways else 0) + (180 if flipped else 0)
        return Lines(found, rotation, width, height)


def _sideways(boxes: Any) -> bool:
    """Whether most of the text (by length) lies in tall boxes: the page is on its side."""
    import numpy as np

    tall = wide = 0.0
    for box in boxes:
        across = float(np.linalg.norm(box[0] - box[1]))
        down = float(np.linalg.norm(box[1] - box[2]))
        if down >= _TALL * across:
            tall += down
        else:
            wide += across
    return tall > wide


def _flipped(crops: list[np.ndarray], labels: list[tuple[str, float]]) -> bool:
    """Whether most of the text (by length and confidence) reads upside down, laid flat."""
    up = down = 0.0
    for crop, (label, score) in zip(crops, labels, strict=True):
        weight = crop.shape[1] * float(score)
        if "180" in label:
            down += weight
        else:
            up += weight
    return down > up
