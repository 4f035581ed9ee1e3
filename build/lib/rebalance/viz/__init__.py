"""Figures for the chapters (matplotlib), one module per area."""
