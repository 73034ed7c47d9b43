"""A research assistant: a question in, a cited Markdown report out."""
