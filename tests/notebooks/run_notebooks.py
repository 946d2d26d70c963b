"""Executes every notebook in notebooks/ with nbclient against the xein kernel.

A notebook passes when every cell runs without error, except the cells tagged
`raises-exception`, which must fail (they demonstrate diagnostics; a cell that stops failing
means the teaching text around it is wrong). Plot cells must produce an image, and every
error traceback must carry a diagnostic code.

    run_notebooks.py [--out DIR] [NOTEBOOK ...]

--out DIR writes each executed notebook (.ipynb) and its HTML export (.html) into DIR.
Needs JUPYTER_PATH to reach an installed einlang kernelspec (tests/stages/notebooks.sh).
"""
import argparse
import pathlib
import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = pathlib.Path(__file__).resolve().parents[2]
CODE = re.compile(r"E0\d\d")


def check(nb, name):
    """Problems found in an executed notebook."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = f"{name} cell {i} ({cell.source.splitlines()[0][:50] if cell.source else ''!r})"
        errors = [o for o in cell.outputs if o.output_type == "error"]
        expected = "raises-exception" in cell.metadata.get("tags", [])
        if expected and not errors:
            problems.append(f"{where}: tagged raises-exception but ran without error")
        if not expected and errors:
            problems.append(f"{where}: unexpected error {errors[0].ename}: {errors[0].evalue}")
        for e in errors:
            if not CODE.fullmatch(e.ename):
                problems.append(f"{where}: error name {e.ename!r} is not a diagnostic code")
        if cell.source.lstrip().startswith("%plot"):
            images = [o for o in cell.outputs if o.output_type == "display_data"
                      and "image/png" in o.data]
            if not images:
                problems.append(f"{where}: %plot produced no PNG display")
    return problems


def html_exporter():
    """nbconvert's HTML exporter exactly as a user gets it (`jupyter nbconvert --to html`, the
    Notebook's "Download as HTML"): default template and mime priority, sanitiser included."""
    from nbconvert import HTMLExporter
    return HTMLExporter()


def check_html(nb, html, name):
    """Every plot of the notebook is in the export as an <img> with its PNG data inline."""
    pngs = [o.data["image/png"] for c in nb.cells if c.cell_type == "code"
            for o in c.outputs if o.output_type == "display_data" and "image/png" in o.get("data", {})]
    problems = []
    for k, png in enumerate(pngs):
        if f'<img src="data:image/png;base64,{png.strip()}' not in html:
            problems.append(f"{name}: plot {k} is not in the HTML export as an image")
    return problems


def run(path, out_dir):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="einlang", timeout=240, allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as e:
        # The message holds the cell's source and the (ANSI-coloured) traceback.
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip()
        return [f"{path.name}: execution stopped:\n" + "\n".join(text.splitlines()[:30])], 0
    took = time.monotonic() - start
    problems = check(nb, path.name)
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out_dir / path.name)
        html, _ = html_exporter().from_notebook_node(nb)
        (out_dir / path.with_suffix(".html").name).write_text(html, encoding="utf-8")
        problems += check_html(nb, html, path.name)
    return problems, took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=pathlib.Path)
    ap.add_argument("notebooks", nargs="*", type=pathlib.Path)
    args = ap.parse_args()
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not paths:
        print("run_notebooks: no notebooks found", file=sys.stderr)
        return 1
    failed = 0
    for p in paths:
        problems, took = run(p.resolve(), args.out)
        status = "FAIL" if problems else "ok"
        print(f"{status:4}  {p.name}  ({took:.1f} s)")
        for msg in problems:
            print(f"      {msg}")
        failed += bool(problems)
    print(f"{len(paths) - failed} of {len(paths)} notebooks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
