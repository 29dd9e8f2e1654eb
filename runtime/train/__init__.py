"""training (filled in by the train module)."""
