"""Reusable widgets of the app: the overview, the movers table and the diff view."""
