"""The app's screens: suites list, review (overview + movers), diff, builds, note, help."""
