"""Samples for the ops the core files define before families grow (kept small; families extend)."""
OPS = []
