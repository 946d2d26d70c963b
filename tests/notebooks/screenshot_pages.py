"""Writes the two pages check_screenshot.py compares, from an executed notebook:

    screenshot_pages.py EXECUTED.ipynb OUTDIR   ->  OUTDIR/plots.html, OUTDIR/control.html

plots.html is the notebook's HTML export with outputs only (no code, no markdown: their
syntax colours would blur the count); control.html is the same with every image output
removed. Both go through nbconvert's HTML exporter, as a user's export would.
"""
import copy
import pathlib
import sys

import nbformat

from run_notebooks import html_exporter


def export(nb, path):
    exporter = html_exporter()
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    exporter.exclude_markdown = True
    html, _ = exporter.from_notebook_node(nb)
    path.write_text(html, encoding="utf-8")


def main(src, out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(src, as_version=4)
    images = sum(1 for c in nb.cells for o in c.get("outputs", [])
                 if o.output_type == "display_data" and "image/png" in o.get("data", {}))
    if images == 0:
        print(f"{src}: no image outputs to check", file=sys.stderr)
        return 1
    export(nb, out / "plots.html")
    control = copy.deepcopy(nb)
    for cell in control.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs
                            if not (o.output_type == "display_data"
                                    and any(k.startswith("image/") for k in o.get("data", {})))]
    export(control, out / "control.html")
    print(f"{src}: {images} image outputs; pages in {out}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
