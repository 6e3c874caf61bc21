"""What rouge-tui writes: platformdirs folders, atomic writes, review marks, the review log
and the cache. Nothing here is ever written into a suite."""
