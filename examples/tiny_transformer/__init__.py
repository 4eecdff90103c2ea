"""A small transformer with the graph-break patterns graphmend fixes (the quick-start example)."""
