"""Pure logic with no I/O of its own: units, state model, policy file, plan, apply, CDI, checks."""
