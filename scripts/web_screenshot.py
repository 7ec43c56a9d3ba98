"""Screenshot of the ``asl-terrain serve`` page with a LOS thread and a reach, for the README (docs/serve.png).

    .venv/bin/python scripts/web_screenshot.py [OUT.png] [--boards bd01,bd02,bd03]

Drives Debian's Chromium (/usr/bin/chromium) with Playwright, as tests/test_web_browser.py does, on the demo
map (or VASL boards laid out on the fly), and writes a palette PNG (Pillow) to keep it small.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from asl_terrain.model import Map, load_demo  # noqa: E402
from asl_terrain.web import create_app, start_background  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


def centre(page: object, name: str) -> tuple[float, float]:
    box = page.locator(f'#layer-hexes [data-hex="{name}"]').bounding_box()  # type: ignore[attr-defined]
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def main() -> None:
    argv = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(argv[0]) if argv else ROOT / "docs" / "serve.png"
    boards = next((sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--boards"), None)
    if boards:
        from asl_terrain import vasl

        m = Map.from_data(vasl.import_boards(boards.replace(";", ",").split(","), layout=boards).map)
        a, b, reach_from, hover = "1E3", "3Q7", "2Y5", "2Y3"
    else:
        m = load_demo()
        a, b, reach_from, hover = "HrI14", "HrK11", "HrM13", "HrM10"
    srv = start_background(create_app(m))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 760})
            page.goto(srv.url + "/")
            page.wait_for_function("document.body.dataset.ready === '1' && document.body.dataset.picture === '1'",
                                   timeout=60000)
            page.click('[data-mode="los"]')
            x, y = centre(page, reach_from)  # zoom in around the action, as a player would
            page.mouse.move(x, y)
            for _ in range(4 if not boards else 8):
                page.mouse.wheel(0, -100)
                page.wait_for_timeout(30)
            x, y = centre(page, a)
            page.mouse.move(x, y)
            page.mouse.down()
            x, y = centre(page, b)
            page.mouse.move(x, y, steps=8)
            page.mouse.up()
            page.wait_for_timeout(800)
            page.screenshot(path=str(out.with_suffix(".los.tmp.png")))
            page.click('[data-mode="reach"]')
            page.fill("#allowance", "4")
            x, y = centre(page, reach_from)
            page.mouse.click(x, y)
            page.wait_for_timeout(800)
            x, y = centre(page, hover)
            page.mouse.move(x, y)
            page.wait_for_selector("[data-path-to]", timeout=20000)
            page.wait_for_timeout(300)
            png = page.screenshot()
            browser.close()
    finally:
        srv.stop()
    def palette(img: Image.Image) -> Image.Image:  # octree keeps the few pixels of a thin coloured line
        return img.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)

    palette(Image.open(io.BytesIO(png))).save(out, optimize=True)
    palette(Image.open(out.with_suffix(".los.tmp.png"))).save(out.with_name(out.stem + "-los.png"), optimize=True)
    out.with_suffix(".los.tmp.png").unlink()
    print(f"wrote {out} and {out.with_name(out.stem + '-los.png')}")


if __name__ == "__main__":
    main()
