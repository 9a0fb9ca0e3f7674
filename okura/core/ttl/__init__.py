"""Time to Live: which tables expire items (registry.py) and the background
sweeper that deletes them (sweeper.py)."""
