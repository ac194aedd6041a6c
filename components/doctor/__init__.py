"""``trainstack doctor``: the live cluster read against the stack's plan record, on day two."""
