"""Pure logic with no I/O of its own: units, checks, and later the policy model and the plan."""
