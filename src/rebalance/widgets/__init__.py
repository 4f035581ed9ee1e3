"""ipywidgets for the chapters.  Every widget function has a static twin (a figure or table) that the
chapter shows too, because a statically served book site cannot run widgets (they run in JupyterLab, and
on the site's live pages when it is served with `make serve`, which starts a local kernel)."""
