"""Neural-network ops (filled in below)."""
