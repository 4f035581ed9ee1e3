"""ipywidgets for the chapters.  Every widget function has a static twin (a figure or table) that the
chapter shows too, because the static book site cannot run widgets."""
