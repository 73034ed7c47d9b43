"""Text helpers every layer shares: URLs, dates, HTML to text, byte decoding, PDF text, tokens and figures.

This is the ground floor: nothing here imports from the rest of the package.
"""
