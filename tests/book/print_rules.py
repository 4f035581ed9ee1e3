"""What the print edition leaves out, read from the sources (shared by test_print_rules.py and test_pdf_edition.py).

* ``PLUMBING``: the cell tag of plumbing, which the PDF leaves out (site/pdf/print-plugin.mjs): a code cell that
  prints nothing but a verdict and only sets up or tears down (imports, display options, a cluster started or
  closed), or only checks a claim the prose states in words (an assertion's confirmation, "... agree: True", a
  table of checks with a ``holds`` column).
* ``HOW_WE_KNOW``: the cell tag of the code cells of a "How we know" box (CONTRIBUTING.md, Chapters), which are also
  ``hide-cell``: folded on the site and in JupyterLab, printed in the PDF (site/pdf/print-plugin.mjs shows hidden
  cells on paper) unless they are plumbing too.
* ``SITE_ONLY``: the toc's pages the PDF leaves out (site/pdf/typst_cli.py's ``SITE_ONLY``: the API reference).
* ``cut_cells``: the table cells a notebook's printed outputs hold cut off ("..." where pandas stopped).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLUMBING = "plumbing"
HOW_WE_KNOW = "how-we-know"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _site_only() -> tuple[str, ...]:
    tree = ast.parse((REPO / "site" / "pdf" / "typst_cli.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "SITE_ONLY" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("site/pdf/typst_cli.py defines no SITE_ONLY")


SITE_ONLY = _site_only()


def chapter_number(notebook: Path) -> int:
    """N of chapters/NN-slug.ipynb."""
    return int(notebook.name.split("-", 1)[0])


def code_cells(notebook: Path) -> list[dict]:
    """The notebook's code cells, each with its source joined into one string."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    out = []
    for cell in cells:
        if cell["cell_type"] == "code":
            out.append({**cell, "source": "".join(cell["source"])})
    return out


def tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def plain_output_text(cell: dict) -> str:
    """Everything a cell prints as text: its streams and the text/plain of its results."""
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append("".join(output["text"]))
        else:
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def is_setup_only(source: str) -> bool:
    """Only imports and pandas display options (``pd.set_option(...)``)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False

    def setting(statement: ast.stmt) -> bool:
        return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and ast.unparse(statement.value.func) in ("pd.set_option", "pandas.set_option"))

    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) or setting(s) for s in body)


def has_check_table(cell: dict) -> bool:
    """The cell shows a table of checks: a DataFrame whose column is ``holds``."""
    for output in cell.get("outputs", []):
        html = "".join(output.get("data", {}).get("text/html", ""))
        if re.search(r"<th>\s*holds\s*</th>", html):
            return True
    return False


def printed_source(notebooks: list[Path]) -> str:
    """Everything the PDF prints of the notebooks' sources, without spaces: the markdown and the code of every cell but
    the plumbing ones (a plumbing line found in it would be found in the PDF whether or not the cell is printed)."""
    parts = []
    for notebook in notebooks:
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown" or not ({PLUMBING, "remove-cell", "remove-input"} & tags(cell)):
                parts.append("".join(cell["source"]))
    return re.sub(r"\s+", "", "\n".join(parts))


def cut_cells(notebook: Path) -> list[tuple[int, str]]:
    """(code cell index, text) of every table cell the PDF prints that the stored output cut off: a cell ending in
    "..." (pandas shortens a cell to ``display.max_colwidth`` characters) or holding only "..." (rows or columns
    elided by ``display.max_rows`` / ``display.max_columns``).  Plumbing and removed cells are not printed."""
    cut = []
    for index, cell in enumerate(code_cells(notebook)):
        if tags(cell) & {PLUMBING, "remove-cell", "remove-output"}:
            continue
        for output in cell.get("outputs", []):
            html = "".join(output.get("data", {}).get("text/html", ""))
            cut += [(index, text) for text in re.findall(r"<td[^>]*>([^<]*)\.\.\.</td>", html)]
    return cut
